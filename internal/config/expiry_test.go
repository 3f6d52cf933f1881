package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An instance's expires is checked against its stack's expiry: within the maximum, required when
// the stack says so, never on a protected instance; bad values name their field.
func TestExpiryIsCheckedAgainstTheStack(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	schema, err := ParseSchema([]byte("expiry: {max: 168h, required: true, action: destroy, warn: [1h, 24h]}\n"))
	require.NoError(t, err)
	stack := &Stack{Schema: schema}
	expiry := func(file string) (*ExpirySpec, error) {
		inst, err := ParseInstance([]byte("stack: preview\n" + file))
		require.NoError(t, err)
		return ExpiryOf(stack, inst, now)
	}

	x, err := expiry("expires: 72h\n")
	require.NoError(t, err)
	require.Equal(t, &ExpirySpec{At: now.Add(72 * time.Hour), Action: "destroy", Warn: []time.Duration{24 * time.Hour, time.Hour}, Max: 168 * time.Hour}, x)
	x, err = expiry("expiresAt: 2026-11-30T12:00:00Z\n")
	require.NoError(t, err)
	require.Equal(t, now.Add(72*time.Hour), x.At)

	for file, want := range map[string]string{
		"expires: 200h\n":                   "expires: 200h0m0s from now is over the stack's maximum 168h0m0s (schema.expiry.max)",
		"":                                  "expires: the stack requires an expiry (schema.expiry.required)",
		"expiresAt: 2026-11-01T00:00:00Z\n": "expiresAt: 2026-11-01T00:00:00Z is not in the future",
		"expires: 72h\nprotected: true\n":   "expires: a protected instance cannot expire (protected: true in the instance file)",
		"expires: 1h\nexpiresAt: 2026-12-01T00:00:00Z\n": "expires: set expires or expiresAt, not both",
	} {
		_, err := expiry(file)
		require.ErrorContains(t, err, want, file)
	}
	_, err = ParseInstance([]byte("stack: preview\nexpires: soon\n"))
	require.ErrorContains(t, err, `expires: "soon" is not a positive Go duration`)
	_, err = ParseSchema([]byte("expiry: {max: 168h, action: explode}\n"))
	require.ErrorContains(t, err, `schema.expiry.action: "explode" is not archive or destroy`)
	_, err = ParseSchema([]byte("expiry: {required: true}\n"))
	require.ErrorContains(t, err, "schema.expiry.max: is required with required: true")

	plain, err := ParseInstance([]byte("stack: web\n"))
	require.NoError(t, err)
	x, err = ExpiryOf(nil, plain, now)
	require.NoError(t, err)
	require.Nil(t, x, "no expires, no stack expiry: it never expires")
}
