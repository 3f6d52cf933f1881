package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

// lockedApplyThenCancel starts an apply that sleeps in a provisioner, checks that Lock and
// a concurrent Plan see the lock, then cancels and checks terraform released it itself.
func lockedApplyThenCancel(t *testing.T, r *Runner, ws Workspace) *LockInfo {
	ctx := context.Background()
	ready(t, r, ws, slowConfig())
	p, err := r.Plan(ctx, ws, "slow", false)
	require.NoError(t, err)

	applyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Apply(applyCtx, ws, p)
		done <- err
	}()
	info := waitForLock(t, r, ws, done)

	_, err = r.Plan(ctx, ws, "concurrent", false)
	var locked *StateLockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, "plan", locked.Command)
	assert.Equal(t, ws, locked.Workspace)
	assert.Equal(t, *info, locked.Lock, "the error names the same lock that Lock reports")
	assert.NotEmpty(t, locked.Detail)

	err = r.ForceUnlock(ctx, ws, info.ID)
	if r.Backend() == backendPG {
		var alive *HolderAliveError
		require.ErrorAs(t, err, &alive, "a lock of a live process on this host cannot be forced")
		assert.Equal(t, os.Getpid(), alive.PID)
	} else {
		require.ErrorAs(t, err, &locked, "a lock of a live process cannot be forced")
		assert.Equal(t, "force-unlock", locked.Command)
	}
	_, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held, "a refused force-unlock leaves the lock alone")

	cancel()
	err = <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)

	_, held, err = r.Lock(ctx, ws)
	require.NoError(t, err)
	assert.False(t, held, "graceful cancel must release the state lock")
	after, err := r.Plan(ctx, ws, "after", false)
	require.NoError(t, err, "a new plan works after the cancel")
	assert.False(t, after.Summary.NoChanges, "the interrupted create is still pending")
	return info
}

func TestLockHeldThenGracefulCancelLocal(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "locked"}
	info := lockedApplyThenCancel(t, r, ws)

	assert.NotEmpty(t, info.ID)
	assert.Equal(t, "OperationTypeApply", info.Operation)
	assert.Equal(t, r.statePath(ws), info.Path)
	assert.NotEmpty(t, info.Who)
	assert.NotEmpty(t, info.Created)
	// terraform itself removed its lock metadata, so it exited through its SIGINT handler.
	_, err := os.Stat(r.lockInfoPath(ws))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestKilledTerraformLeavesStaleLockInfoOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "killed"}
	ready(t, r, ws, slowConfig())

	// A terraform that dies without its SIGINT handler, as in a worker crash.
	cmd := exec.Command(r.binary, "apply", "-auto-approve", "-input=false", "-no-color")
	cmd.Dir = r.Dir(ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	info := waitForLock(t, r, ws, done)
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)) // the whole group, sleep included
	<-done

	_, err := os.Stat(r.lockInfoPath(ws))
	require.NoError(t, err, "SIGKILL leaves terraform's lock metadata behind")
	_, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	assert.False(t, held, "metadata without a live holder is not a lock")

	err = r.ForceUnlock(ctx, ws, "not-"+info.ID)
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "lockID", ie.Field)
	require.NoError(t, r.ForceUnlock(ctx, ws, info.ID))
	_, err = os.Stat(r.lockInfoPath(ws))
	assert.ErrorIs(t, err, os.ErrNotExist)
	require.NoError(t, r.ForceUnlock(ctx, ws, info.ID), "unlocking twice is fine")

	_, err = r.Plan(ctx, ws, "after", false)
	require.NoError(t, err)
}

// A terraform killed by a signal slipway did not send (the OOM killer, a dying worker) is a
// KilledError, which the activities retry; before, it was a CommandError, which failed the step.
func TestApplyKilledFromOutsideIsKilledError(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	ws := Workspace{Tenant: "t", Name: "killed"}
	ctx := context.Background()
	ready(t, r, ws, slowConfig())
	p, err := r.Plan(ctx, ws, "slow", false)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := r.Apply(ctx, ws, p)
		done <- err
	}()
	waitForLock(t, r, ws, done)
	killed := 0
	for _, pid := range proc.Descendants(os.Getpid()) {
		// This test's terraform only: the package's other tests run theirs in parallel.
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); strings.TrimSpace(string(comm)) == "terraform" && cwd == r.Dir(ws) {
			require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
			killed++
		}
	}
	require.Equal(t, 1, killed, "one terraform runs the apply")
	err = <-done
	var ke *KilledError
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, "apply", ke.Command)
	assert.Equal(t, "killed", ke.Signal)
	var ce *CommandError
	assert.False(t, errors.As(err, &ce), "not a verdict on the change")
}
