package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A drift check sees an edit made behind terraform's back and changes nothing itself.
func TestDriftSeesAnOutOfBandEditAndChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "drift"}
	ready(t, r, ws, twoResources("x"))
	plan, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, plan)
	require.NoError(t, err)

	d, err := r.Drift(ctx, ws)
	require.NoError(t, err)
	require.False(t, d.Drifted(), "%+v", d)

	// Someone edits the state: terraform_data.a now says "edited" where the config says "x".
	state := r.StatePath(ws)
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"input": {
              "value": "x"`, `"input": {
              "value": "edited"`, 1)
	require.NotEqual(t, string(data), edited, "the state holds a's input as written above:\n%s", data)
	require.NoError(t, os.WriteFile(state, []byte(edited), 0o600))
	serial, err := r.Serial(ctx, ws)
	require.NoError(t, err)

	d, err = r.Drift(ctx, ws)
	require.NoError(t, err)
	require.True(t, d.Drifted())
	require.Len(t, d.Pending, 1)
	require.Equal(t, "terraform_data.a", d.Pending[0].Address)
	require.Equal(t, []string{"update"}, d.Pending[0].Actions, "input changes in place; only triggers_replace replaces")
	after, err := r.Serial(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, serial, after, "the check wrote no state")
	require.NoFileExists(t, filepath.Join(r.Dir(ws), driftPlan))
}
