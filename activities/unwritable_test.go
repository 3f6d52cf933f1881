package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

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

// warnings is a Temporal logger that keeps the warnings it is given.
type warnings struct{ lines []string }

func (w *warnings) Debug(string, ...any) {}
func (w *warnings) Info(string, ...any)  {}
func (w *warnings) Error(string, ...any) {}
func (w *warnings) Warn(msg string, kv ...any) {
	w.lines = append(w.lines, strings.TrimSpace(fmt.Sprintln(append([]any{msg}, kv...)...)))
}

// The step that found a lock a killed worker left logs what it removed, with its MR's branch.
func TestAMergeStepLogsTheStaleLockItRemoved(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "gitops.git")
	f, err := localgit.Init(dir, map[string][]byte{"README.md": []byte("gitops\n")})
	require.NoError(t, err)
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/acme/web/deploy-1", Title: "t", Dir: "instances/acme/web",
		Files: map[string][]byte{"instance.yaml": []byte("stack: s\n")}})
	require.NoError(t, err)
	lock := filepath.Join(dir, "refs", "heads", "main.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(lock, old, old))

	var s testsuite.WorkflowTestSuite
	logs := &warnings{}
	s.SetLogger(logs)
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&Activities{Forge: f})
	v, err := env.ExecuteActivity(contract.ActMergeMR, mr)
	require.NoError(t, err)
	var merged forge.MergeRequest
	require.NoError(t, v.Get(&merged))
	assert.Equal(t, forge.StateMerged, merged.State)
	require.Len(t, logs.lines, 1)
	assert.Contains(t, logs.lines[0], "localgit: removed stale git lock refs/heads/main.lock left by a dead writer")
	assert.Contains(t, logs.lines[0], "branch slipway/acme/web/deploy-1")
	assert.Regexp(t, `age 1m0\.\d+s`, logs.lines[0])
	// The step's record (status, events) names it too, not only the worker's log.
	require.Len(t, merged.Repaired, 1)
	assert.Regexp(t, `^localgit: removed stale git lock refs/heads/main.lock left by a dead writer \(age 1m0\.\d+s\)$`, merged.Repaired[0])
}
