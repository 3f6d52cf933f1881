package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/identity"
)

// connectionEnv gives the CLI a payload key, an empty sign-in cache and a temporal.toml whose
// ops profile points at a closed loopback port; every TEMPORAL_* and SLIPWAY_PROFILE starts unset.
func connectionEnv(t *testing.T) string {
	t.Helper()
	clearTemporalCredentials(t)
	for _, v := range []string{"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_PROFILE", "TEMPORAL_TLS", identity.EnvProfile} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v)) // envconfig takes an empty TEMPORAL_ADDRESS as set
	}
	key, err := codec.Generate("test")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, key)
	file := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(file, []byte("[profile.default]\naddress = \"127.0.0.1:1\"\n\n[profile.ops]\naddress = \"127.0.0.1:2\"\nnamespace = \"ops\"\n"), 0o600))
	t.Setenv("TEMPORAL_CONFIG_FILE", file)
	return file
}

func TestResolveProfile(t *testing.T) {
	connectionEnv(t)
	assert.Equal(t, profileChoice{name: "default"}, resolveProfile(""))
	t.Setenv("TEMPORAL_PROFILE", "tp")
	assert.Equal(t, profileChoice{name: "tp", by: "$TEMPORAL_PROFILE", strict: true}, resolveProfile(""))
	t.Setenv(identity.EnvProfile, "sp")
	assert.Equal(t, profileChoice{name: "sp", by: "$SLIPWAY_PROFILE"}, resolveProfile(""), "SLIPWAY_PROFILE over TEMPORAL_PROFILE")
	assert.Equal(t, profileChoice{name: "fp", by: "--profile", strict: true}, resolveProfile("fp"), "the flag over both")
}

// Where a read dials shows which setting won: the error names the address it could not reach.
// Flag over TEMPORAL_* over the profile's.
func TestConnectionFlagsPrecedence(t *testing.T) {
	connectionEnv(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"the file's default profile", nil, nil, "127.0.0.1:1"},
		{"--profile picks the file's profile", nil, []string{"--profile", "ops"}, "127.0.0.1:2"},
		{"SLIPWAY_PROFILE picks it too", map[string]string{identity.EnvProfile: "ops"}, nil, "127.0.0.1:2"},
		{"TEMPORAL_PROFILE too", map[string]string{"TEMPORAL_PROFILE": "ops"}, nil, "127.0.0.1:2"},
		{"TEMPORAL_ADDRESS over the profile", map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:3"}, []string{"--profile", "ops"}, "127.0.0.1:3"},
		{"--address over TEMPORAL_ADDRESS", map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:3"}, []string{"--profile", "ops", "--address", "127.0.0.1:4"}, "127.0.0.1:4"},
		{"a sign-in-only SLIPWAY_PROFILE keeps the default connection", map[string]string{identity.EnvProfile: "laptop"}, nil, "127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, errOut := runMain(append(tc.args, "list")...)
			require.Equal(t, ExitFailed, code, errOut)
			assert.Contains(t, errOut, "cannot reach Temporal at "+tc.want+" ")
		})
	}
}

// A profile named by --profile or TEMPORAL_PROFILE that the config file lacks is bad input: exit 2
// naming the flag (or variable) and the file, before anything is dialled.
func TestMissingProfileExitsTwo(t *testing.T) {
	file := connectionEnv(t)
	code, _, errOut := runMain("--profile", "staging", "list")
	require.Equal(t, ExitUsage, code, errOut)
	assert.Contains(t, errOut, "--profile")
	assert.Contains(t, errOut, `"staging"`)
	assert.Contains(t, errOut, file)
	assert.NotContains(t, errOut, "cannot reach")

	t.Setenv("TEMPORAL_PROFILE", "staging")
	code, _, errOut = runMain("status", "acme/web")
	require.Equal(t, ExitUsage, code, errOut)
	assert.Contains(t, errOut, "$TEMPORAL_PROFILE")

	code, _, errOut = runMain("--profile", "no/such", "list")
	require.Equal(t, ExitUsage, code, errOut)
	assert.Contains(t, errOut, "--profile")
}
