//go:build unix

package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// An init killed while it wrote the plugin cache leaves its busy mark: the next holder empties
// the cache rather than link a half-written provider; a cache left by a finished init is kept.
func TestThePluginCacheAKilledInitLeftIsEmptied(t *testing.T) {
	cache := t.TempDir()
	ctx := context.Background()
	provider := filepath.Join(cache, "registry.terraform.io", "hashicorp", "time", "0.13.1", "linux_amd64")
	require.NoError(t, os.MkdirAll(provider, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(provider, "terraform-provider-time"), []byte("whole"), 0o755))

	var notes []string
	ctx = WithNotes(ctx, func(msg string, attrs ...any) { notes = append(notes, fmt.Sprint(append([]any{msg}, attrs...)...)) })
	unlock, err := lockDir(ctx, cache)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(cache, CacheBusyFile), "marked while held")
	unlock()
	assert.NoFileExists(t, filepath.Join(cache, CacheBusyFile))
	assert.DirExists(t, provider, "a finished init's cache is kept")
	assert.Empty(t, notes, "nothing to repair")

	// The holder dies mid-write: the kernel drops its flock, its mark stays.
	require.NoError(t, os.WriteFile(filepath.Join(provider, "terraform-provider-time"), []byte("ha"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cache, CacheBusyFile), nil, 0o600))
	died := time.Now().Add(-41 * time.Second)
	require.NoError(t, os.Chtimes(filepath.Join(cache, CacheBusyFile), died, died))
	unlock, err = lockDir(ctx, cache)
	require.NoError(t, err)
	defer unlock()
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{cacheLockFile, CacheBusyFile}, names, "the half-written provider is gone")
	require.Len(t, notes, 1, "the repair is recorded")
	assert.Contains(t, notes[0], "emptied the plugin cache: an init killed while it installed providers left "+CacheBusyFile)
	assert.Regexp(t, `age4[1-9]`, notes[0], "its age, at least the 41s it was set back")
	assert.Contains(t, notes[0], "removedregistry.terraform.io")
}

// After a killed init, the next one empties the shared cache: the workspaces that linked their
// providers from it are no longer initialised, so their next step inits again rather than fail
// to plan; the temporary lock file terraform left in a working directory goes, and is noted.
func TestWorkspacesLinkedToAnEmptiedCacheInitAgain(t *testing.T) {
	m := timeMirror(t, "0.99.0")
	r := newRunner(t, WithProviderMirror(m.Dir))
	var mu sync.Mutex
	var notes []string
	ctx := WithNotes(context.Background(), func(msg string, attrs ...any) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, fmt.Sprint(append([]any{msg}, attrs...)...))
	})
	pinned := func(v string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(strings.Replace(string(timeConfig["main.tf"]),
			`source = "hashicorp/time"`, `source = "hashicorp/time", version = "`+v+`"`, 1))}
	}
	ws, other := Workspace{Tenant: "acme", Name: "web"}, Workspace{Tenant: "acme", Name: "other"}
	ready(t, r, ws, pinned(tfmirror.TimeVersion))
	require.True(t, r.Initialized(ws))

	// A worker killed inside an init: its cache mark and temporary files stay.
	died := time.Now().Add(-41 * time.Second)
	temps := []string{depLockFile + "2718281828", tmpPrefix + "31415", emptyStateFile}
	for _, p := range []string{filepath.Join(r.pluginCache, CacheBusyFile), filepath.Join(r.Dir(ws), temps[0]),
		filepath.Join(r.Dir(ws), temps[1]), filepath.Join(r.Dir(ws), temps[2])} {
		require.NoError(t, os.WriteFile(p, []byte("half"), 0o600))
		require.NoError(t, os.Chtimes(p, died, died))
	}
	// The next init (of another version, so the cache does not get this one back) repairs it.
	require.NoError(t, r.Prepare(ctx, other, pinned("0.99.0")))
	require.NoError(t, r.Init(ctx, other))
	require.Len(t, notes, 1, "%q", notes)
	assert.Contains(t, notes[0], "emptied the plugin cache")
	assert.False(t, r.Initialized(ws), "its providers were linked from the emptied cache")
	// A command that was already past that check when the cache went fails retryably, naming why.
	_, err := r.Plan(ctx, ws, "p0", false)
	var gone *ProvidersGoneError
	require.ErrorAs(t, err, &gone)
	assert.Equal(t, "plan", gone.Command)

	require.NoError(t, r.Prepare(ctx, ws, pinned(tfmirror.TimeVersion)))
	require.Len(t, notes, 1+len(temps), "%q", notes)
	for _, name := range temps {
		found := false
		for _, n := range notes[1:] {
			if strings.Contains(n, "terraform: removed "+name+", a temporary file a killed writer left") {
				found = true
				assert.Contains(t, n, "instanceacme/web")
				assert.Regexp(t, `age4[1-9]`, n, "its age, at least the 41s it was set back (more on a loaded machine)")
			}
		}
		assert.True(t, found, "%s: %q", name, notes)
		assert.NoFileExists(t, filepath.Join(r.Dir(ws), name))
	}
	require.NoError(t, r.Init(ctx, ws))
	assert.True(t, r.Initialized(ws))
	_, err = r.Plan(ctx, ws, "p", false)
	require.NoError(t, err)
}
