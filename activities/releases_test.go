package activities

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// A pinned instance loads its release's files whatever main holds since; an unpinned one its
// stack's default channel's, or main's head when the channel is head; a release whose files no
// longer hash as recorded is refused, naming it.
func TestInstanceStackLoadsThePinnedRelease(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/s/schema.yaml":            []byte("parameters: []\n"),
		"stacks/s/terraform/main.tf.tmpl": []byte("# v1\n"),
	})
	require.NoError(t, err)
	key, err := attest.Generate()
	require.NoError(t, err)
	seals, err := attest.Parse("test", key)
	require.NoError(t, err)
	a := &Activities{Forge: f, Seals: seals}
	pushes := 0
	push := func(dir string, files map[string][]byte) {
		t.Helper()
		pushes++
		mr, err := f.Open(ctx, forge.Change{Branch: fmt.Sprintf("test/push-%d", pushes), Title: "t", Dir: dir, Files: files})
		require.NoError(t, err)
		_, err = f.Merge(ctx, mr)
		require.NoError(t, err)
	}
	stackFiles := func(v string) map[string][]byte {
		return map[string][]byte{"schema.yaml": []byte("parameters: []\n"), "terraform/main.tf.tmpl": []byte("# " + v + "\n")}
	}
	stack := func(req contract.StackRequest) (contract.StackResult, error) {
		req.Stack, req.CutBy = "s", "carol"
		if req.ID == "" {
			req.ID = req.Op + "-" + req.Version + "-" + req.Channel
		}
		return a.Stack(ctx, req)
	}
	loaded := func(pin string) string {
		t.Helper()
		st, _, err := a.instanceStack(ctx, "", &config.Instance{Stack: pin})
		require.NoError(t, err, pin)
		return string(st.Files["terraform/main.tf.tmpl"])
	}

	_, err = stack(contract.StackRequest{Op: contract.StackOpRelease, Version: "1.0.0", Notes: "first"})
	require.NoError(t, err)
	push("stacks/s", stackFiles("v2"))
	res, err := stack(contract.StackRequest{Op: contract.StackOpRelease, Version: "1.1.0"})
	require.NoError(t, err)
	require.Len(t, res.Releases, 2)
	require.Equal(t, "carol", res.Releases[1].CutBy)
	push("stacks/s", stackFiles("v3"))

	require.Equal(t, "# v1\n", loaded("s@1.0.0"))
	require.Equal(t, "# v2\n", loaded("s@1.1.0"))
	require.Equal(t, "# v3\n", loaded("s"), "no default channel: main's head, as before releases")

	_, err = stack(contract.StackRequest{Op: contract.StackOpChannel, Channel: "stable", Version: "1.0.0", Default: true})
	require.NoError(t, err)
	require.Equal(t, "# v1\n", loaded("s"), "unpinned renders the default channel")
	require.Equal(t, "# v1\n", loaded("s@stable"))
	_, err = stack(contract.StackRequest{Op: contract.StackOpChannel, Channel: "dev", Version: "head", Default: true})
	require.NoError(t, err)
	require.Equal(t, "# v3\n", loaded("s"), "a default channel on head renders main's head")
	_, rel, err := a.instanceStack(ctx, "", &config.Instance{Stack: "s@stable"})
	require.NoError(t, err)
	require.Equal(t, "s@1.0.0", rel.Ref(), "InstanceRelease shows the release a channel resolves to")

	// What a terraform step takes of the stack (credentials, budgets) is the pinned release's too.
	push("stacks/s", map[string][]byte{"schema.yaml": []byte("parameters: []\ncredentials: [cloud]\n"), "terraform/main.tf.tmpl": []byte("# v4\n")})
	facts, err := a.stackFacts(ctx, "", stackOf(map[string][]byte{instanceFile: []byte("stack: s@1.0.0\n")}))
	require.NoError(t, err)
	require.Empty(t, facts.credentials, "1.0.0 names no credential; main's head does")
	facts, err = a.stackFacts(ctx, "", "s")
	require.NoError(t, err)
	require.Equal(t, []string{"cloud"}, facts.credentials, "the default channel is on head")

	// Bad input, each naming its field.
	for _, c := range []struct {
		req  contract.StackRequest
		want string
	}{
		{contract.StackRequest{Op: contract.StackOpRelease, Version: "1.1.0", ID: "dup"}, "release s@1.1.0 exists already"},
		{contract.StackRequest{Op: contract.StackOpRelease, Version: "1.2", ID: "bad"}, "version"},
		{contract.StackRequest{Op: contract.StackOpRelease, Version: "1.2.0", From: "main", ID: "from"}, "--from"},
		{contract.StackRequest{Op: contract.StackOpChannel, Channel: "stable", Version: "9.9.9", ID: "ch"}, "unknown release s@9.9.9"},
	} {
		_, err := stack(c.req)
		require.ErrorContains(t, err, c.want)
	}
	_, _, err = a.instanceStack(ctx, "", &config.Instance{Stack: "s@2.0.0"})
	require.ErrorContains(t, err, "unknown release s@2.0.0; releases: 1.0.0, 1.1.0; channels: dev=head, stable=1.0.0")
	_, err = a.repin(ctx, "", []byte("stack: s\nparameters: {}\n"), "other@1.0.0")
	require.ErrorContains(t, err, "a release of stack other")
	pinned, err := a.repin(ctx, "", []byte("stack: s\nparameters: {}\n"), "1.1.0")
	require.NoError(t, err)
	require.Contains(t, string(pinned), "stack: s@1.1.0")

	// A broken stack cannot be cut; the error names the file.
	push("stacks/s", map[string][]byte{"schema.yaml": []byte("parameters: []\n"), "terraform/main.tf.tmpl": []byte("# {{ .Params \n")})
	_, err = stack(contract.StackRequest{Op: contract.StackOpRelease, Version: "1.2.0"})
	require.ErrorContains(t, err, "terraform/main.tf.tmpl")

	// A release whose recorded files are not those at its commit (history rewritten) is refused.
	r, err := a.readReleases(ctx, "", "s")
	require.NoError(t, err)
	r.Releases[0].Tree = config.TreeHash(stackFiles("rewritten"))
	a.seal(r)
	push(config.ReleasesDir("s"), map[string][]byte{config.ReleasesFile: r.Encode()})
	_, _, err = a.instanceStack(ctx, "", &config.Instance{Stack: "s@1.0.0"})
	require.ErrorContains(t, err, "release s@1.0.0: the files of stacks/s at")

	// A releases file slipway did not write (its seal kept, a channel moved; or no seal) is refused,
	// naming the file, by every read: a render, a cut, a channel move.
	r.Channels["stable"] = "1.1.0"
	push(config.ReleasesDir("s"), map[string][]byte{config.ReleasesFile: r.Encode()})
	_, _, err = a.instanceStack(ctx, "", &config.Instance{Stack: "s@stable"})
	require.ErrorContains(t, err, "releases/s/releases.yaml: not written by slipway")
	r.Seal = ""
	push(config.ReleasesDir("s"), map[string][]byte{config.ReleasesFile: r.Encode()})
	_, err = stack(contract.StackRequest{Op: contract.StackOpChannel, Channel: "stable", Version: "1.0.0", ID: "after"})
	require.ErrorContains(t, err, "releases/s/releases.yaml: not written by slipway")
}
