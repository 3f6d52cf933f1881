package codec

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newKey(t *testing.T, id string) string {
	t.Helper()
	line, err := Generate(id)
	require.NoError(t, err)
	return line
}

func keyring(t *testing.T, lines ...string) *Keyring {
	t.Helper()
	k, err := Parse("test", strings.Join(lines, ","))
	require.NoError(t, err)
	return k
}

func TestParseFirstKeyIsActive(t *testing.T) {
	k, err := Parse(EnvKey, newKey(t, "new")+" , "+newKey(t, "old")+"\n"+newKey(t, "older"))
	require.NoError(t, err)
	require.Equal(t, "new", k.ActiveID())
	require.Equal(t, []string{"new", "old", "older"}, k.IDs())
}

// Every parse error names the source and the entry, and never echoes key material.
func TestParseErrorsNameEntryNeverKey(t *testing.T) {
	good := newKey(t, "good")
	_, goodKey, _ := strings.Cut(good, ":")
	short := base64.StdEncoding.EncodeToString([]byte("sixteen-byte-key"))
	cases := map[string]struct {
		text, want, secret string
	}{
		"no colon":      {good + "," + goodKey, `SLIPWAY_CODEC_KEY: entry 2: want ID:BASE64KEY`, goodKey},
		"bad id":        {"bad id!:" + goodKey, "SLIPWAY_CODEC_KEY: entry 1: key id (7 chars) must match", "bad id!"},
		"key as id":     {goodKey + ":" + goodKey, "entry 1: key id (44 chars)", goodKey},
		"short key":     {"k1:" + short, `entry 1 (id "k1"): key must decode to exactly 32 bytes, got 16`, short},
		"not base64":    {"k1:" + goodKey[:20] + "%%%" + goodKey[23:], `entry 1 (id "k1"): key is not valid standard base64`, goodKey[:20]},
		"duplicate id":  {good + ",\n" + good, `entry 2 (id "good"): duplicate key id`, goodKey},
		"empty":         {" , \n", "SLIPWAY_CODEC_KEY: no keys", ""},
		"comments only": {"# nothing\n", "SLIPWAY_CODEC_KEY: no keys", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(EnvKey, tc.text)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			if tc.secret != "" {
				require.NotContains(t, err.Error(), tc.secret)
			}
		})
	}
}

func writeKeyFile(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "codec.keys")
	require.NoError(t, os.WriteFile(p, []byte(body), mode))
	require.NoError(t, os.Chmod(p, mode))
	return p
}

func TestParseFileCommentsBlankLinesAndLineNumbers(t *testing.T) {
	p := writeKeyFile(t, "# rotated 2026-01-01\n\n"+newKey(t, "k2")+"\n  # old one\n"+newKey(t, "k1")+"\n", 0o600)
	k, err := ParseFile(p)
	require.NoError(t, err)
	require.Equal(t, []string{"k2", "k1"}, k.IDs())

	p = writeKeyFile(t, "# header\n"+newKey(t, "k2")+"\n\nk1:AAAA\n", 0o600)
	_, err = ParseFile(p)
	require.ErrorContains(t, err, p+`:4: entry 2 (id "k1"): key must decode to exactly 32 bytes, got 3`)
}

func TestParseFileRefusesGroupOrWorldReadable(t *testing.T) {
	p := writeKeyFile(t, newKey(t, "k1")+"\n", 0o640)
	_, err := ParseFile(p)
	var me *KeyFileModeError
	require.ErrorAs(t, err, &me)
	require.Contains(t, err.Error(), "chmod 600 "+p)
}

func TestLoadOrder(t *testing.T) {
	fallback := writeKeyFile(t, newKey(t, "dev")+"\n", 0o600)
	file := writeKeyFile(t, newKey(t, "fromfile")+"\n", 0o600)

	t.Setenv(EnvKey, newKey(t, "fromenv"))
	t.Setenv(EnvKeyFile, file)
	_, err := Load(fallback)
	require.ErrorAs(t, err, new(*BothSetError))
	require.ErrorContains(t, err, EnvKey+" and "+EnvKeyFile)

	t.Setenv(EnvKeyFile, "")
	k, err := Load(fallback)
	require.NoError(t, err)
	require.Equal(t, "fromenv", k.ActiveID())

	t.Setenv(EnvKey, "")
	t.Setenv(EnvKeyFile, file)
	k, err = Load(fallback)
	require.NoError(t, err)
	require.Equal(t, "fromfile", k.ActiveID())

	t.Setenv(EnvKeyFile, "")
	k, err = Load(fallback)
	require.NoError(t, err)
	require.Equal(t, "dev", k.ActiveID())

	missing := filepath.Join(t.TempDir(), "codec.keys")
	_, err = Load(missing)
	var nk *NoKeyError
	require.ErrorAs(t, err, &nk)
	require.Contains(t, err.Error(), "slipway codec keygen")
	require.Contains(t, err.Error(), missing)

	_, err = FromEnv()
	require.ErrorAs(t, err, &nk)
}

func TestGenerate(t *testing.T) {
	a, b := newKey(t, "k20261122"), newKey(t, "k20261122")
	require.NotEqual(t, a, b, "keys are random")
	k := keyring(t, a)
	require.Equal(t, "k20261122", k.ActiveID())
	_, err := Generate("no spaces")
	require.ErrorAs(t, err, new(*BadIDError))
	require.Equal(t, "k20261122", DefaultKeyID(time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)))
}
