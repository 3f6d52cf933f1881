package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

func payload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

func encode(t *testing.T, k *Keyring, ps ...*commonpb.Payload) []*commonpb.Payload {
	t.Helper()
	out, err := New(k).Encode(ps)
	require.NoError(t, err)
	return out
}

func TestRoundTripHidesDataAndMetadata(t *testing.T) {
	k := keyring(t, newKey(t, "k1"))
	in := payload(t, map[string]string{"password": "hunter2-xyz"})
	enc := encode(t, k, in)
	require.Len(t, enc, 1)
	require.Equal(t, EncodingEncrypted, string(enc[0].Metadata[MetadataEncoding]))
	require.Equal(t, "k1", string(enc[0].Metadata[MetadataKeyID]))
	require.Len(t, enc[0].Metadata, 2, "the inner encoding is sealed too")
	require.NotContains(t, string(enc[0].Data), "hunter2-xyz")
	require.NotContains(t, string(enc[0].Data), "json/plain")

	dec, err := New(k).Decode(enc)
	require.NoError(t, err)
	require.True(t, proto.Equal(in, dec[0]))
	again := encode(t, k, in)
	require.NotEqual(t, enc[0].Data, again[0].Data, "a fresh nonce every time")
}

func TestDataConverterRoundTrip(t *testing.T) {
	dc := DataConverter(keyring(t, newKey(t, "k1")))
	p, err := dc.ToPayload(struct{ Name string }{"web"})
	require.NoError(t, err)
	require.Equal(t, EncodingEncrypted, string(p.Metadata[MetadataEncoding]))
	var got struct{ Name string }
	require.NoError(t, dc.FromPayload(p, &got))
	require.Equal(t, "web", got.Name)
}

func TestRotation(t *testing.T) {
	oldKey, newK := newKey(t, "old"), newKey(t, "new")
	before := encode(t, keyring(t, oldKey), payload(t, "from before the rotation"))
	rotated := keyring(t, newK, oldKey)

	dec, err := New(rotated).Decode(before)
	require.NoError(t, err, "old histories still decode after a rotation")
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &s))
	require.Equal(t, "from before the rotation", s)

	after := encode(t, rotated, payload(t, "after"))
	require.Equal(t, "new", string(after[0].Metadata[MetadataKeyID]), "the first key encrypts")
	_, err = New(keyring(t, newK)).Decode(after)
	require.NoError(t, err)
}

func TestUnknownKeyID(t *testing.T) {
	enc := encode(t, keyring(t, newKey(t, "gone")), payload(t, "x"))
	_, err := New(keyring(t, newKey(t, "k2"))).Decode(enc)
	var uk *UnknownKeyError
	require.ErrorAs(t, err, &uk)
	require.Equal(t, "gone", uk.ID)
}

func TestTamperedCiphertextFails(t *testing.T) {
	k := keyring(t, newKey(t, "k1"))
	enc := encode(t, k, payload(t, "x"))
	enc[0].Data[len(enc[0].Data)-1] ^= 1
	_, err := New(k).Decode(enc)
	var de *DecryptError
	require.ErrorAs(t, err, &de)
	require.Equal(t, "k1", de.KeyID)

	enc[0].Data = enc[0].Data[:5]
	_, err = New(k).Decode(enc)
	require.ErrorAs(t, err, &de)
}

// The key ID is bound as additional data: relabelling a payload fails even when
// the other ID holds the very same key bytes.
func TestSwappedKeyIDFails(t *testing.T) {
	a := newKey(t, "a")
	_, raw, _ := strings.Cut(a, ":")
	k := keyring(t, a, "b:"+raw)
	enc := encode(t, k, payload(t, "x"))
	enc[0].Metadata[MetadataKeyID] = []byte("b")
	_, err := New(k).Decode(enc)
	var de *DecryptError
	require.ErrorAs(t, err, &de)
	require.Equal(t, "b", de.KeyID)
}

// Histories recorded before encryption (testsuite/histories) still replay.
func TestPlaintextPassesThrough(t *testing.T) {
	in := payload(t, "plain")
	dec, err := New(keyring(t, newKey(t, "k1"))).Decode([]*commonpb.Payload{in})
	require.NoError(t, err)
	require.Same(t, in, dec[0])
}

// A fleet's record over CompressAbove is compressed inside the seal: a rollout's state of 10,000
// instances (1.9 MB, near Temporal's 2 MiB limit) seals to a fraction of that and opens unchanged.
// A payload under the bound is sealed as it is: its sealed length is its length plus the seal's.
func TestLargePayloadsAreCompressedInsideTheSeal(t *testing.T) {
	k := keyring(t, newKey(t, "k1"))
	type inst struct{ Ref, State, Current, Desired, Status string }
	var fleet []inst
	for i := range 10000 {
		fleet = append(fleet, inst{Ref: fmt.Sprintf("rollout-scale/i-%05d", i), State: "Deployed", Current: "replicas=1", Desired: "replicas=2", Status: "updated"})
	}
	big := payload(t, fleet)
	require.Greater(t, proto.Size(big), 1<<20)
	enc := encode(t, k, big)
	require.Equal(t, EncodingEncrypted, string(enc[0].Metadata[MetadataEncoding]))
	require.Less(t, len(enc[0].Data), proto.Size(big)/5, "compressed before it is sealed")
	t.Logf("%d bytes sealed to %d", proto.Size(big), len(enc[0].Data))
	dec, err := New(k).Decode(enc)
	require.NoError(t, err)
	require.True(t, proto.Equal(big, dec[0]), "opens to the payload as it was")

	small := payload(t, strings.Repeat("a", CompressAbove/2))
	enc = encode(t, k, small)
	plain, err := proto.Marshal(small)
	require.NoError(t, err)
	require.Len(t, enc[0].Data, len(plain)+12+16, "nonce, ciphertext of the payload as it is, tag")
}
