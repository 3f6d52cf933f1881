package e2e

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/testsuite"
)

// A step made to fail every attempt (git's lock on main, held fresh by "another writer") shows
// Retrying in status -o json from its second attempt, with the attempt, the last error and the
// next try; from the third the instance's Retrying condition, `list --retrying` and one
// notification. Once the cause is gone, `retry` tries the step at once instead of after its backoff.
func TestRetryingStepIsVisibleAndRetryTriesNow(t *testing.T) {
	rc := &receiver{secret: []byte("s3cret-for-the-retrying-test")}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	t.Setenv("SLIPWAY_E2E_HOOK_SECRET", string(rc.secret))
	sinks := filepath.Join(t.TempDir(), "notify.yaml")
	require.NoError(t, os.WriteFile(sinks, []byte(fmt.Sprintf("sinks:\n  - name: ops\n    kind: webhook\n    url: %s/hook\n"+
		"    secretEnv: SLIPWAY_E2E_HOOK_SECRET\n    events: [Retrying]\n", srv.URL)), 0o600))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NotifyFile = sinks })

	gitDir := strings.TrimSpace(testsuite.Git(t, e.GitOpsRepo, "rev-parse", "--absolute-git-dir"))
	stop := holdGitLock(t, filepath.Join(gitDir, "refs", "heads", "main.lock"))
	defer stop()
	e.MustCLI(0, "create", "acme/stuck", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"))

	// Within one attempt: the second shows, from Temporal's pending activity.
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status("acme/stuck")
		return st.Operation != nil && st.Operation.Retrying != nil
	}, 20*time.Second, 200*time.Millisecond, "status never showed the step retrying")
	r := st.Operation.Retrying
	require.Equal(t, contract.MergeMR, r.Step)
	require.GreaterOrEqual(t, r.Attempt, 2)
	require.Contains(t, r.LastError, "locked by another writer")
	require.False(t, r.Since.IsZero())
	require.True(t, r.Running || r.NextTry.After(r.LastFailure), "waiting attempts say when they try next: %+v", r)
	require.Equal(t, contract.ResultRunning, st.Operation.Result, "still running: a retry, not a failure")

	// From the third attempt: the condition, the search attribute and the notification.
	require.Eventually(t, func() bool {
		st = e.Status("acme/stuck")
		return slices.ContainsFunc(st.Conditions, func(c lifecycle.Condition) bool {
			return c.Type == contract.CondRetrying && c.Status == lifecycle.ConditionTrue
		})
	}, 20*time.Second, 200*time.Millisecond, "no Retrying condition: %+v", st.Conditions)
	require.Eventually(t, func() bool {
		var items []client.ListItem
		out := e.MustCLI(0, "list", "--retrying", "-o", "json").Stdout
		return json.Unmarshal([]byte(out), &items) == nil && slices.ContainsFunc(items, func(it client.ListItem) bool {
			return it.Tenant == "acme" && it.Name == "stuck" && it.Retrying
		})
	}, 20*time.Second, 250*time.Millisecond, "list --retrying")
	require.Eventually(t, func() bool { return len(rc.kinds()) == 1 }, 20*time.Second, 100*time.Millisecond)
	require.Equal(t, []string{"Retrying acme/stuck"}, rc.kinds())

	// A later attempt waits several seconds for its next try; the cause goes, and retry tries now.
	require.Eventually(t, func() bool {
		st = e.Status("acme/stuck")
		r = st.Operation.Retrying
		return r != nil && !r.Running && time.Until(r.NextTry) > 2*time.Second
	}, 30*time.Second, 100*time.Millisecond, "no wait of 2s or more for the next try")
	stop()
	e.MustCLI(0, "retry", "acme/stuck", "--wait")

	st = e.Status("acme/stuck")
	merged := slices.IndexFunc(st.Operation.Steps, func(s contract.StepRecord) bool {
		return s.Name == contract.MergeMR && s.Status == contract.StepDone
	})
	require.GreaterOrEqual(t, merged, 0, "%+v", st.Operation.Steps)
	require.True(t, st.Operation.Steps[merged].EndedAt.Before(r.NextTry), "retry tried at once: merged at %s, the next try was due at %s",
		st.Operation.Steps[merged].EndedAt, r.NextTry)
	require.Equal(t, lifecycle.ConfigurationCreated, st.State)
	require.Nil(t, st.Operation.Retrying)
	require.False(t, slices.ContainsFunc(st.Conditions, func(c lifecycle.Condition) bool { return c.Type == contract.CondRetrying }))
	require.Equal(t, contract.MergeMR, st.Decisions[len(st.Decisions)-1].RetriedStep, "the retry is recorded")
	time.Sleep(time.Second) // a second notification would be a duplicate: give it the chance to arrive
	require.Equal(t, []string{"Retrying acme/stuck"}, rc.kinds(), "one notification")
	rc.mu.Lock()
	ev := rc.got[0]
	rc.mu.Unlock()
	require.Equal(t, notify.KindRetrying, ev.Kind)
	require.Equal(t, contract.MergeMR, ev.Step)
	require.Contains(t, ev.Message, "locked by another writer")
	events := e.MustCLI(0, "events", "acme/stuck").Stdout
	require.Contains(t, events, "Retrying: attempt 3: ")

	// A permanent cause is not retried: a lock no remove takes away fails the step at once, into
	// ProvisioningFailed with a leftover that names it, and nobody is told it is Retrying.
	lock := filepath.Join(gitDir, "refs", "heads", "main.lock")
	require.NoError(t, os.MkdirAll(filepath.Join(lock, "x"), 0o755))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lock, old, old))
	e.MustCLI(1, "create", "acme/broken", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	st = e.Status("acme/broken")
	require.Equal(t, lifecycle.ProvisioningFailed, st.State)
	require.True(t, slices.ContainsFunc(st.Failure.Leftovers, func(l contract.Leftover) bool { return l.Kind == "gitops-repo" }), "%+v", st.Failure)
	require.Nil(t, st.Operation.Retrying)
	require.Equal(t, []string{"Retrying acme/stuck"}, rc.kinds())
	require.NoError(t, os.RemoveAll(lock))
}

// holdGitLock keeps path as a git lock a live writer holds (younger than the 10 s after which
// slipway takes it for a dead one's) until stop, which removes it.
func holdGitLock(t *testing.T, path string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				now := time.Now()
				_ = os.Chtimes(path, now, now)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			_ = os.Remove(path)
		})
	}
}
