package activities

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// Issue 39: a plan pins main's head, then its config-diff half and its terraform half each read
// the repository. A push to main between them (a new stack template and a new parameter value)
// must change neither: both read the pinned revision, so they agree.
func TestPlanHalvesReadThePinnedRevisionWhileMainMoves(t *testing.T) {
	ctx := context.Background()
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	stack := func(version string) map[string][]byte {
		return map[string][]byte{
			"schema.yaml":            []byte("parameters:\n  - name: greeting\n    type: string\n    required: true\n"),
			"terraform/main.tf.tmpl": []byte("# {{ .Params.greeting }} from stack " + version + "\n"),
		}
	}
	instance := func(greeting string) []byte { return []byte("stack: s\nparameters:\n  greeting: " + greeting + "\n") }
	seed := map[string][]byte{"instances/acme/web/instance.yaml": instance("hello")}
	for p, d := range stack("v1") {
		seed["stacks/s/"+p] = d
	}
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), seed)
	require.NoError(t, err)
	a := &Activities{Forge: f}
	merges := 0
	merge := func(dir string, files map[string][]byte) {
		t.Helper()
		merges++
		mr, err := f.Open(ctx, forge.Change{Branch: "test/" + strconv.Itoa(merges), Title: "change " + dir, Dir: dir, Files: files})
		require.NoError(t, err)
		_, err = f.Merge(ctx, mr)
		require.NoError(t, err)
	}
	// main holds the instance as slipway renders it; the plan pins that revision.
	rendered, err := a.render(ctx, "", ref, instance("hello"))
	require.NoError(t, err)
	merge(ref.Dir(), rendered)
	pin, err := a.ResolveRevision(ctx, contract.RevisionInput{Ref: ref, MustExist: true})
	require.NoError(t, err)

	// Between the halves main moves: a new stack template, and the instance file changed by hand.
	merge("stacks/s", stack("v2"))
	moved := map[string][]byte{}
	for p, d := range rendered {
		moved[p] = d
	}
	moved[instanceFile] = instance("bye")
	merge(ref.Dir(), moved)
	onMain, err := a.ConfigDiff(ctx, contract.DiffInput{Ref: ref})
	require.NoError(t, err)
	require.Contains(t, onMain, "+# bye from stack v2", "main has moved: a diff of main's head shows it")

	diff, err := a.ConfigDiff(ctx, contract.DiffInput{Ref: ref, Revision: pin.Revision})
	require.NoError(t, err)
	require.Empty(t, diff, "the config-diff half reads the pinned revision: nothing to change there")
	_, all, err := a.terraformFiles(ctx, contract.TerraformInput{Ref: ref, Revision: pin.Revision, Rerender: true})
	require.NoError(t, err)
	require.Equal(t, "# hello from stack v1\n", string(all["terraform/main.tf"]), "the terraform half plans the same render")
}
