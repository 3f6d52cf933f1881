package e2e

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// The read commands' formats against the dev server: status -o yaml and -o json are the same
// object, list -o json parses, the old `-o all --json` still works (told on stderr only), and
// --address and --namespace reach the connection over TEMPORAL_ADDRESS.
func TestOutputFormatsAndConnectionFlags(t *testing.T) {
	e := testsuite.NewEnv(t)
	e.MustCLI(0, "create", "fmt/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")

	var fromJSON, fromYAML map[string]any
	require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "status", "fmt/web", "-o", "json").Stdout), &fromJSON))
	y := e.MustCLI(0, "status", "fmt/web", "-o", "yaml").Stdout
	require.NoError(t, yaml.Unmarshal([]byte(y), &fromYAML), y)
	require.Equal(t, string(lifecycle.ConfigurationCreated), fromYAML["state"], y)
	// observedAt is stamped at each read; everything else is the same object.
	delete(fromJSON, "observedAt")
	delete(fromYAML, "observedAt")
	require.Equal(t, normalized(t, fromJSON), normalized(t, fromYAML))

	var items []client.ListItem
	require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "list", "--tenant", "fmt", "-o", "json").Stdout), &items))
	require.Len(t, items, 1)
	require.Equal(t, "fmt", items[0].Tenant)
	require.Equal(t, string(lifecycle.ConfigurationCreated), items[0].State)

	// Older scripts: -o all with --json prints the same JSON as --detail all -o json; the note is on stderr.
	old := e.MustCLI(0, "status", "fmt/web", "-o", "all", "--json")
	require.Contains(t, old.Stderr, "-o all is deprecated: use --detail all")
	var oldSt, newSt contract.Status
	require.NoError(t, json.Unmarshal([]byte(old.Stdout), &oldSt), old.Stdout)
	require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "status", "fmt/web", "--detail", "all", "-o", "json").Stdout), &newSt))
	require.NotNil(t, newSt.Render, "--detail all shows what the last merge rendered")
	require.NotContains(t, fromJSON, "render", "the summary does not")
	require.Equal(t, newSt.Render, oldSt.Render)
	require.Equal(t, newSt.Operation.ID, oldSt.Operation.ID)

	// --address wins over a TEMPORAL_ADDRESS that answers nothing.
	t.Setenv("TEMPORAL_ADDRESS", "127.0.0.1:1")
	e.MustCLI(1, "list")
	require.Contains(t, e.MustCLI(0, "--address", e.Address, "list").Stdout, "fmt/web")
	// --namespace reaches the server, which knows no such namespace.
	r := e.MustCLI(1, "--address", e.Address, "--namespace", "no-such-namespace", "list")
	require.Contains(t, r.Stderr, "no-such-namespace")
}

func normalized(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}
