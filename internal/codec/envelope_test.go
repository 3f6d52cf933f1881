package codec

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSealOpenRoundTripAndRotation(t *testing.T) {
	old := newKey(t, "old")
	before := keyring(t, old)
	s, err := before.Seal([]byte("terraform plan bytes"), []byte("plan acme/web/op-1"))
	require.NoError(t, err)
	require.Equal(t, "old", s.KeyID)
	require.NotContains(t, string(s.Data), "terraform plan bytes")

	after := keyring(t, newKey(t, "new"), old)
	plain, err := after.Open(s, []byte("plan acme/web/op-1"))
	require.NoError(t, err, "rotation keeps old rows readable")
	require.Equal(t, "terraform plan bytes", string(plain))

	fresh, err := after.Seal([]byte("x"), nil)
	require.NoError(t, err)
	require.Equal(t, "new", fresh.KeyID, "the first key seals")
}

func TestOpenRefusesNamingTheKeyID(t *testing.T) {
	k := keyring(t, newKey(t, "k1"))
	s, err := k.Seal([]byte("secret"), []byte("secret acme/web/db"))
	require.NoError(t, err)

	_, err = keyring(t, newKey(t, "k2")).Open(s, []byte("secret acme/web/db"))
	var unknown *UnknownKeyError
	require.ErrorAs(t, err, &unknown)
	require.Contains(t, err.Error(), `"k1"`)

	_, err = keyring(t, newKey(t, "k1")).Open(s, []byte("secret acme/web/db"))
	var bad *DecryptError
	require.ErrorAs(t, err, &bad, "same ID, other key bytes")
	require.Contains(t, err.Error(), `"k1"`)

	_, err = k.Open(s, []byte("secret other/web/db"))
	require.ErrorAs(t, err, &bad, "a row moved to another instance does not open")

	s.Data[len(s.Data)-1] ^= 1
	_, err = k.Open(s, []byte("secret acme/web/db"))
	require.ErrorAs(t, err, &bad, "tampered data does not open")
}
