//go:build unix

package terraform

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An init killed while it wrote the plugin cache leaves its busy mark: the next holder empties
// the cache rather than link a half-written provider; a cache left by a finished init is kept.
func TestThePluginCacheAKilledInitLeftIsEmptied(t *testing.T) {
	cache := t.TempDir()
	ctx := context.Background()
	provider := filepath.Join(cache, "registry.terraform.io", "hashicorp", "time", "0.13.1", "linux_amd64")
	require.NoError(t, os.MkdirAll(provider, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(provider, "terraform-provider-time"), []byte("whole"), 0o755))

	unlock, err := lockDir(ctx, cache)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(cache, cacheBusyFile), "marked while held")
	unlock()
	assert.NoFileExists(t, filepath.Join(cache, cacheBusyFile))
	assert.DirExists(t, provider, "a finished init's cache is kept")

	// The holder dies mid-write: the kernel drops its flock, its mark stays.
	require.NoError(t, os.WriteFile(filepath.Join(provider, "terraform-provider-time"), []byte("ha"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cache, cacheBusyFile), nil, 0o600))
	unlock, err = lockDir(ctx, cache)
	require.NoError(t, err)
	defer unlock()
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{cacheLockFile, cacheBusyFile}, names, "the half-written provider is gone")
}
