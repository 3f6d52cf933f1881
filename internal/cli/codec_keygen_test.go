package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/codec"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestKeygenPrintsAUsableEntry(t *testing.T) {
	code, out, errs := run(t, "codec", "keygen")
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, regexp.MustCompile(`^k\d{8}:[A-Za-z0-9+/]{43}=\n$`), out)
	k, err := codec.Parse("keygen", out)
	require.NoError(t, err)
	require.Regexp(t, `^k\d{8}$`, k.ActiveID())

	code, out, _ = run(t, "codec", "keygen", "--id", "ops-2")
	require.Equal(t, ExitOK, code)
	require.True(t, strings.HasPrefix(out, "ops-2:"), out)
}

func TestKeygenWritesANewPrivateFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "keys")
	code, out, errs := run(t, "codec", "keygen", "--id", "k1", "-o", p)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, codec.EnvKeyFile+"="+p)
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	k, err := codec.ParseFile(p)
	require.NoError(t, err)
	require.Equal(t, "k1", k.ActiveID())
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	_, key, _ := strings.Cut(lines[len(lines)-1], ":")
	require.Len(t, key, 44)
	require.NotContains(t, out, key, "the key goes to the file only")

	code, _, errs = run(t, "codec", "keygen", "-o", p)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "refusing to overwrite")
	again, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, data, again)
}

func TestCodecCommandUsageErrors(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"keygen bad id":        {[]string{"codec", "keygen", "--id", "no spaces"}, "--id"},
		"keygen bad dir":       {[]string{"codec", "keygen", "-o", "/nonexistent/dir/keys"}, "-o/--output"},
		"server bad listen":    {[]string{"codec-server", "--listen", "localhost"}, "--listen"},
		"server origin path":   {[]string{"codec-server", "--origin", "http://localhost:8233/ui"}, "--origin"},
		"server origin scheme": {[]string{"codec-server", "--origin", "localhost:8233"}, "--origin"},
		"server token file":    {[]string{"codec-server", "--auth-token-file", "/nonexistent"}, "--auth-token-file"},
		"secrets bad ref":      {[]string{"secrets", "acme"}, "TENANT/NAME"},
		"secrets no ref":       {[]string{"secrets"}, "TENANT/NAME"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			require.Equal(t, ExitUsage, code, errs)
			require.Contains(t, errs, tc.want)
		})
	}
}
