//go:build unix

package terraform

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/stackenv"
)

// within fails the test when f has not returned in time: a read waiting on a FIFO never does.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s still waiting after 20s", what)
	}
}

// TestFIFOsTerraformLeftNeverHoldTheWorker: FIFOs in place of a configuration file, the engine
// marker in terraform's data dir and the local state, as terraform's code can leave them (the
// test makes them in its place). Lock, Initialized and Prepare return, and Prepare puts the
// file back. Before, each waited for a writer that never comes, holding its activity and a thread.
func TestFIFOsTerraformLeftNeverHoldTheWorker(t *testing.T) {
	r := newRunner(t)
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, twoResources("one"))
	dir := r.Dir(ws)
	for _, p := range []string{filepath.Join(dir, "main.tf"), filepath.Join(dir, dataDir, engineMarker), filepath.Join(dir, dataDir, initLockMark), r.statePath(ws)} {
		_ = os.Remove(p)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, syscall.Mkfifo(p, 0o600))
	}
	within(t, "Lock", func() { _, _, _ = r.Lock(ctx, ws) })
	within(t, "Initialized", func() { assert.False(t, r.Initialized(ws), "a FIFO is no marker of an init") })
	within(t, "Prepare", func() { require.NoError(t, r.Prepare(ctx, ws, twoResources("one"))) })
	fi, err := os.Lstat(filepath.Join(dir, "main.tf"))
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "Prepare wrote main.tf again")
}

// TestAHugeFileTerraformLeftIsNotRead: a sparse lock file of 64 MiB (it could be 100 GiB, for
// no disk) is refused by the worker's reader, naming it. Before, the worker read all of it; at
// 100 GiB it died out of memory, with every tenant's work.
func TestAHugeFileTerraformLeftIsNotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), depLockFile)
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20))
	require.NoError(t, f.Close())
	_, err = readOwn(p)
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, depLockFile, bad.Value)
}

// TestProvidersNeverInstallFromTheInstancesHome: a provider package in the instance's HOME,
// where terraform looks for one when its CLI configuration names no installation method (its
// implied local mirror). With no mirror and no configuration of the operator's, slipway's own
// says direct installation only: init does not take it (here, with no registry reachable, it
// fails), and the shared plugin cache gets nothing. Before, init installed it into the cache
// every instance of the worker links from.
func TestProvidersNeverInstallFromTheInstancesHome(t *testing.T) {
	m := timeMirror(t)
	cache := filepath.Join(t.TempDir(), "cache")
	noConfig := func(k string) (string, bool) {
		if k == "TF_CLI_CONFIG_FILE" {
			return "", false
		}
		return os.LookupEnv(k)
	}
	r := newRunner(t, WithPluginCache(cache), WithStackEnv(stackenv.AllowList{}, noConfig))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	home := r.homeDir(ws)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".terraform.d"), 0o700))
	require.NoError(t, os.Symlink(m.Dir, filepath.Join(home, ".terraform.d", "plugins")))
	require.NoError(t, r.Prepare(ctx, ws, timeConfig))
	err := r.Init(ctx, ws)
	require.Error(t, err, "init took the provider from HOME")
	cached, _ := filepath.Glob(filepath.Join(cache, "registry.terraform.io/hashicorp/time/*/*/terraform-provider-time*"))
	assert.Empty(t, cached)
	cfg, err := os.ReadFile(filepath.Join(r.stateDir, cliConfigName))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "direct {}")
}
