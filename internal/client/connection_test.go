package client

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
)

// temporalConfig writes a temporal.toml with a default and an ops profile and points
// TEMPORAL_CONFIG_FILE at it; every TEMPORAL_* override starts unset.
func temporalConfig(t *testing.T) string {
	t.Helper()
	for _, v := range []string{"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_PROFILE", "TEMPORAL_API_KEY", "TEMPORAL_TLS"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v)) // envconfig tells an empty variable from an unset one
	}
	file := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(file, []byte(`
[profile.default]
address = "file-default:7233"
namespace = "ns-default"

[profile.ops]
address = "file-ops:7233"
namespace = "ns-ops"
`), 0o600))
	t.Setenv("TEMPORAL_CONFIG_FILE", file)
	return file
}

// connection is where Options would dial: address and namespace.
func connection(t *testing.T, opts ...Option) (string, string) {
	t.Helper()
	o, err := Options(append([]Option{WithDataConverter(converter.GetDefaultDataConverter())}, opts...)...)
	require.NoError(t, err)
	return o.HostPort, o.Namespace
}

// Flags over TEMPORAL_* variables over the config file's profile, as the temporal CLI.
func TestConnectionPrecedence(t *testing.T) {
	temporalConfig(t)
	addr, ns := connection(t)
	assert.Equal(t, []string{"file-default:7233", "ns-default"}, []string{addr, ns}, "no profile named: the file's default")

	addr, ns = connection(t, WithProfile("ops", "--profile"))
	assert.Equal(t, []string{"file-ops:7233", "ns-ops"}, []string{addr, ns}, "the named profile")

	t.Setenv("TEMPORAL_ADDRESS", "env:7233")
	addr, ns = connection(t, WithProfile("ops", "--profile"))
	assert.Equal(t, []string{"env:7233", "ns-ops"}, []string{addr, ns}, "TEMPORAL_ADDRESS over the profile's address only")

	t.Setenv("TEMPORAL_NAMESPACE", "ns-env")
	addr, ns = connection(t, WithProfile("ops", "--profile"), WithHostPort("flag:7233"), WithNamespace("ns-flag"))
	assert.Equal(t, []string{"flag:7233", "ns-flag"}, []string{addr, ns}, "the flags over the variables")

	require.NoError(t, os.Unsetenv("TEMPORAL_ADDRESS"))
	require.NoError(t, os.Unsetenv("TEMPORAL_NAMESPACE"))
	t.Setenv("TEMPORAL_PROFILE", "ops")
	addr, _ = connection(t)
	assert.Equal(t, "file-ops:7233", addr, "TEMPORAL_PROFILE picks the profile when no option names one")
}

// A profile named explicitly that the file lacks is the caller's input: refused naming what named
// it and the file, before anything is dialled. One named only in passing falls back.
func TestProfileMissingFromTheConfigFile(t *testing.T) {
	file := temporalConfig(t)
	_, err := Options(WithDataConverter(converter.GetDefaultDataConverter()), WithProfile("staging", "--profile"))
	var pn *ProfileNotFoundError
	require.ErrorAs(t, err, &pn)
	assert.True(t, IsBadRequest(err), "exit 2")
	assert.Contains(t, err.Error(), "--profile")
	assert.Contains(t, err.Error(), `"staging"`)
	assert.Contains(t, err.Error(), file)

	addr, _ := connection(t, WithProfile("staging", ""))
	assert.Equal(t, "file-default:7233", addr, "not strict: the file's default profile")

	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(t.TempDir(), "absent.toml"))
	_, err = Options(WithDataConverter(converter.GetDefaultDataConverter()), WithProfile("staging", "$TEMPORAL_PROFILE"))
	require.ErrorAs(t, err, &pn)
	assert.Contains(t, err.Error(), "$TEMPORAL_PROFILE")
	assert.Contains(t, err.Error(), "absent.toml (no such file)")
}
