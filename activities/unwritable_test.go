package activities

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// A merge the GitOps repository can never take fails the step at once, and its leftover says why.
func TestAMergeIntoAnUnwritableRepositoryFailsAtOnceWithItsCause(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "gitops.git")
	f, err := localgit.Init(dir, map[string][]byte{"README.md": []byte("gitops\n")})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/acme/web/deploy-1", Title: "t", Dir: "instances/acme/web",
		Files: map[string][]byte{"instance.yaml": []byte("stack: s\n")}})
	require.NoError(t, err)
	assert.Empty(t, a.unwritableRepo(ctx))
	lock := filepath.Join(dir, "refs", "heads", "main.lock") // a stale lock no remove takes away
	require.NoError(t, os.MkdirAll(filepath.Join(lock, "x"), 0o755))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lock, old, old))

	_, err = a.MergeMergeRequest(ctx, mr)
	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae), "got %v", err)
	assert.True(t, ae.NonRetryable(), "no retrying for an hour")
	assert.Equal(t, contract.ErrNotAllowed, ae.Type())
	assert.NotContains(t, err.Error(), "base branch moved")

	left := a.unwritableRepo(ctx)
	require.Len(t, left, 1)
	assert.Equal(t, "gitops-repo", left[0].Kind)
	assert.Contains(t, left[0].Detail, lock)
	assert.Contains(t, left[0].Detail, "a stale git lock file cannot be removed: directory not empty")

	require.NoError(t, os.RemoveAll(lock)) // the operator's fix; retry merges
	merged, err := a.MergeMergeRequest(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateMerged, merged.State)
}
