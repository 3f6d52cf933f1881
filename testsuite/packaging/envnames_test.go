package packaging

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The scanner finds reads by a literal, by a named constant of another package (a concatenation
// too) and through getenv parameters; it skips prefixes, tests, testsuite/ and testdata/.
func TestEnvReadsInCodeFollowsConstantsAndSkipsTests(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"keys/keys.go": `package keys

const (
	EnvKey  = "SLIPWAY_KEY"
	base    = "CUSTOM"
	EnvHome = base + "_HOME"
	Prefix  = "SLIPWAY_OUTPUT_"
)
`,
		"app/app.go": `package app

import (
	"os"

	k "example.com/m/keys"
)

const colour = "NO_COLOR"

func Read(getenv func(string) string) {
	_ = os.Getenv(k.EnvKey)
	_ = os.Getenv(k.EnvHome)
	_, _ = os.LookupEnv("XDG_STATE_HOME")
	_ = getenv(colour)
	_ = os.Getenv(k.Prefix + "X") // built at run time: not a constant name
	_ = "not an env name"
}
`,
		"app/app_test.go":         "package app\n\nconst onlyTests = \"SLIPWAY_ONLY_TESTS\"\n",
		"testsuite/h/h.go":        "package h\n\nconst harness = \"SLIPWAY_HARNESS\"\n",
		"app/testdata/fixture.go": "package fixture\n\nconst f = \"SLIPWAY_FIXTURE\"\n",
		"cmd/tool/main.go":        "package main\n\nimport \"os\"\n\nfunc main() { _ = os.Getenv(\"TERM\") }\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	reads, err := EnvReadsInCode(root)
	require.NoError(t, err)
	require.Equal(t, map[string][]string{
		"SLIPWAY_KEY":    {"app/app.go", "keys/keys.go"}, // the read and the constant
		"CUSTOM_HOME":    {"app/app.go"},
		"XDG_STATE_HOME": {"app/app.go"},
		"NO_COLOR":       {"app/app.go"},
		"TERM":           {"cmd/tool/main.go"},
	}, reads)
}
