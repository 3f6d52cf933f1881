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
	"github.com/slipway-dev/slipway/internal/store"
)

// An earlier sealed releases file restored on main is refused, naming the file and both
// generations, while the same file read at a past commit (history) still resolves; files written
// before generations were counted are generation 0, the first seen on main recorded.
func TestReplayedReleasesFileIsRefused(t *testing.T) {
	ctx := context.Background()
	a, f, seals := releasesRepo(t, "s")
	pushes := 0
	push := func(r *config.Releases) string {
		t.Helper()
		pushes++
		mr, err := f.Open(ctx, forge.Change{Branch: fmt.Sprintf("test/push-%d", pushes), Title: "t",
			Dir: config.ReleasesDir("s"), Files: map[string][]byte{config.ReleasesFile: r.Encode()}})
		require.NoError(t, err)
		mr, err = f.Merge(ctx, mr)
		require.NoError(t, err)
		return mr.MergeSHA
	}
	head, err := f.Head(ctx)
	require.NoError(t, err)
	files, err := f.ReadDir(ctx, head, "stacks/s")
	require.NoError(t, err)

	// Two files as slipway wrote them before it counted its writes (generation 0).
	older := &config.Releases{Stack: "s"}
	require.NoError(t, older.Add(contract.StackRelease{Version: "1.0.0", Commit: head, Tree: config.TreeHash(files)}))
	require.NoError(t, older.SetChannel("stable", "1.0.0", false))
	older.Seal = seals.Seal(older.Sealed())
	olderAt := push(older)
	newer := *older
	newer.Channels = map[string]string{"stable": "1.0.0", "dev": "head"}
	newer.Seal = seals.Seal(newer.Sealed())
	newerAt := push(&newer)

	_, err = a.readReleases(ctx, olderAt, "s")
	require.NoError(t, err, "a past commit's file is history, and is not taken for the first seen")
	r, err := a.readReleases(ctx, "", "s")
	require.NoError(t, err, "main's generation 0 is recorded on upgrade")
	require.Equal(t, "head", r.Channels["dev"])

	const file = "releases/s/releases.yaml: replayed"
	push(older)
	_, err = a.readReleases(ctx, "", "s")
	require.ErrorContains(t, err, file)
	require.ErrorContains(t, err, "generation 0, but not the generation 0 slipway wrote")
	push(&newer)

	res, err := a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "head", ID: "move"})
	require.NoError(t, err)
	require.Equal(t, "head", res.Channels["stable"])
	require.Equal(t, 1, res.Generation, "the first write after the upgrade is generation 1")
	_, err = a.readReleases(ctx, newerAt, "s")
	require.NoError(t, err, "the commit an attempt pinned before the channel moved still resolves")

	replayAt := push(&newer)
	for _, rev := range []string{"", replayAt} {
		_, _, err = a.instanceStack(ctx, rev, &config.Instance{Stack: "s@stable"})
		require.ErrorContains(t, err, file, "rev %q", rev)
		require.ErrorContains(t, err, "generation 0, older than generation 1, the last slipway wrote", "rev %q", rev)
	}
	_, err = a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "1.0.0", ID: "back"})
	require.ErrorContains(t, err, file, "a channel move reads the replayed file too")

	// A generation slipway wrote, restored on main, is refused the same.
	moved, err := f.ReadDir(ctx, res.MergeSHA, config.ReleasesDir("s"))
	require.NoError(t, err)
	latest, err := config.ParseReleases("s", moved[config.ReleasesFile])
	require.NoError(t, err)
	require.Equal(t, 1, latest.Generation)
	push(latest)
	_, err = a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "1.0.0", ID: "again"})
	require.NoError(t, err, "the file as slipway last wrote it resolves again")
	push(latest)
	_, err = a.readReleases(ctx, "", "s")
	require.ErrorContains(t, err, "generation 1, older than generation 2")
}

// Deleting the releases file on main (or emptying it) once slipway wrote one is refused, at main
// and at any commit, naming the file: it would put every instance on the default channel onto
// main's unreleased stack. Before, the instance rendered unpinned. (A commit found fresh before
// stays so: a pipeline that pinned it goes on.)
func TestDeletedReleasesFileIsRefused(t *testing.T) {
	ctx := context.Background()
	a, f, _ := releasesRepo(t, "s", "u")
	before, err := f.Head(ctx)
	require.NoError(t, err)

	_, err = a.Stack(ctx, contract.StackRequest{Op: contract.StackOpRelease, Stack: "s", Version: "1.0.0", ID: "cut"})
	require.NoError(t, err)
	res, err := a.Stack(ctx, contract.StackRequest{Op: contract.StackOpChannel, Stack: "s", Channel: "stable", Version: "1.0.0", Default: true, ID: "default"})
	require.NoError(t, err)
	_, rel, err := a.instanceStack(ctx, "", &config.Instance{Stack: "s"})
	require.NoError(t, err)
	require.Equal(t, "1.0.0", rel.Version, "an unpinned instance takes the default channel")
	_, err = a.readReleases(ctx, before, "s")
	require.NoError(t, err, "a commit from before the first release is history while main holds the file")

	for i, files := range []map[string][]byte{{config.ReleasesFile: []byte("\n")}, {}} {
		mr, err := f.Open(ctx, forge.Change{Branch: fmt.Sprintf("test/delete-%d", i), Title: "t", Dir: config.ReleasesDir("s"), Files: files})
		require.NoError(t, err)
		mr, err = f.Merge(ctx, mr)
		require.NoError(t, err)
		for _, rev := range []string{"", mr.MergeSHA} { // what an operation started now reads
			_, _, err = a.instanceStack(ctx, rev, &config.Instance{Stack: "s"})
			require.ErrorContains(t, err, "releases/s/releases.yaml: deleted", "change %d, rev %q", i, rev)
			require.ErrorContains(t, err, "slipway wrote generation 2")
		}
	}
	_, _, err = a.instanceStack(ctx, "", &config.Instance{Stack: "u"})
	require.NoError(t, err, "a stack slipway never released renders unpinned")

	latest, err := f.ReadDir(ctx, res.MergeSHA, config.ReleasesDir("s"))
	require.NoError(t, err)
	mr, err := f.Open(ctx, forge.Change{Branch: "test/restore", Title: "t", Dir: config.ReleasesDir("s"), Files: latest})
	require.NoError(t, err)
	_, err = f.Merge(ctx, mr)
	require.NoError(t, err)
	_, rel, err = a.instanceStack(ctx, "", &config.Instance{Stack: "s"})
	require.NoError(t, err, "the file as slipway last wrote it resolves again")
	require.Equal(t, "1.0.0", rel.Version)
}

// releasesRepo is a GitOps repository holding the named stacks, and activities that seal and
// record releases files in it.
func releasesRepo(t *testing.T, stacks ...string) (*Activities, *localgit.Forge, *attest.Keyring) {
	t.Helper()
	files := map[string][]byte{}
	for _, s := range stacks {
		files["stacks/"+s+"/schema.yaml"] = []byte("parameters: []\n")
		files["stacks/"+s+"/terraform/main.tf.tmpl"] = []byte("# " + s + "\n")
	}
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), files)
	require.NoError(t, err)
	key, err := attest.Generate()
	require.NoError(t, err)
	seals, err := attest.Parse("test", key)
	require.NoError(t, err)
	return &Activities{Forge: f, Seals: seals, Heads: store.HeadDir(filepath.Join(t.TempDir(), "heads"))}, f, seals
}
