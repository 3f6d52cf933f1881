package localgit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

// notes collects what the forge reported through forge.Note.
type notes struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notes) ctx() context.Context {
	return forge.WithNotes(context.Background(), func(msg string, attrs ...any) {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.msgs = append(n.msgs, strings.TrimSpace(fmt.Sprintln(append([]any{msg}, attrs...)...)))
	})
}

func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.msgs, "\n")
}

// age backdates a file as if its writer had left it ago.
func age(t *testing.T, path string, ago time.Duration) {
	t.Helper()
	then := time.Now().Add(-ago)
	require.NoError(t, os.Chtimes(path, then, then))
}

func TestMergeClearsTheGitLocksADeadWriterLeftAndSaysSo(t *testing.T) {
	f, dir := newBare(t)
	var n notes
	ctx := n.ctx()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	stale := []string{"refs/heads/main.lock", "index.lock", "packed-refs.lock", "refs/heads/slipway/acme/web/provision-1.lock"}
	for _, rel := range stale {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		age(t, p, time.Minute)
	}

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
	for _, rel := range stale {
		assert.NoFileExists(t, filepath.Join(dir, filepath.FromSlash(rel)))
		assert.Contains(t, n.String(), "removed stale git lock "+rel, "the step hears of each lock it lost")
	}
	assert.Regexp(t, `lock refs/heads/main\.lock age 1m0\.\d+s`, n.String(), "with its age")
}

func TestALiveWriterMakesTheOtherWaitThenBusyNeverBaseMoved(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	// Another slipway process writing: it holds the writer lock (and so may hold main.lock).
	holder, err := os.OpenFile(filepath.Join(dir, writerLockName), os.O_RDWR, 0)
	require.NoError(t, err)
	defer holder.Close()
	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_EX))
	lock := filepath.Join(dir, "refs", "heads", "main.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	age(t, lock, time.Hour) // old, but its writer is alive: not touched

	f.cfg.lockWait = 200 * time.Millisecond
	_, err = f.Merge(ctx, mr)
	var locked *forge.LockedError
	require.True(t, errors.As(err, &locked), "want *forge.LockedError, got %v", err)
	assert.ErrorIs(t, err, errkind.Busy)
	assert.NotErrorIs(t, err, forge.ErrBaseMoved)
	assert.False(t, forge.IsNonRetryable(err))
	assert.Contains(t, err.Error(), writerLockName)
	assert.FileExists(t, lock, "a lock under a live writer is never removed")

	// The holder finishes its write and lets go while the next merge waits.
	f.cfg.lockWait = 10 * time.Second
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
		holder.Close()
	}()
	start := time.Now()
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond, "it waited for the holder")
	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
}

func TestAStaleLockThatCannotBeRemovedFailsForGoodNamingIt(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	lock := filepath.Join(dir, "refs", "heads", "main.lock") // a directory: no remove takes it away
	require.NoError(t, os.MkdirAll(filepath.Join(lock, "x"), 0o755))
	age(t, lock, time.Hour)

	_, err = f.Merge(ctx, mr)
	var unw *UnwritableError
	require.True(t, errors.As(err, &unw), "want *UnwritableError, got %v", err)
	assert.ErrorIs(t, err, errkind.NotAllowed, "non-retryable: the step fails at once")
	assert.Equal(t, lock, unw.Path)
	assert.Equal(t, "a stale git lock file cannot be removed: directory not empty", unw.Cause)
	assert.Equal(t, err.Error(), f.CheckWritable(ctx).Error(), "leftovers name the same cause")
}

func TestAReadOnlyRepositoryFailsForGoodNamingTheCause(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("needs chattr")
	}
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	heads := filepath.Join(dir, "refs", "heads")
	// Immutable stops root too (tests run as root, for whom chmod changes nothing).
	if out, err := exec.Command("chattr", "+i", heads).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", heads).Run() })

	_, err = f.Merge(ctx, mr)
	var unw *UnwritableError
	require.True(t, errors.As(err, &unw), "want *UnwritableError, got %v", err)
	assert.ErrorIs(t, err, errkind.NotAllowed)
	assert.NotErrorIs(t, err, forge.ErrBaseMoved)
	assert.Contains(t, err.Error(), "operation not permitted")
	require.Error(t, f.CheckWritable(ctx))
	assert.Contains(t, f.CheckWritable(ctx).Error(), "operation not permitted")
}

func TestGitsPermanentFileSystemErrorsAreUnwritable(t *testing.T) {
	for _, stderr := range []string{
		"fatal: cannot lock ref 'refs/heads/main': Unable to create '/r/refs/heads/main.lock': Read-only file system",
		"error: unable to create temporary file: No space left on device",
		"fatal: Unable to create '/r/refs/heads/main.lock': Permission denied",
	} {
		err := classifyGit("/r", &GitError{Args: []string{"update-ref"}, ExitCode: 128, Stderr: stderr, Err: errors.New("exit status 128")})
		assert.ErrorIs(t, err, errkind.NotAllowed, stderr)
		assert.Equal(t, 128, exitCode(err))
	}
	err := classifyGit("/r", &GitError{Args: []string{"update-ref"}, ExitCode: 128, Stderr: "fatal: cannot lock ref 'refs/heads/main': is at a but expected b"})
	assert.Equal(t, errkind.Kind(""), errkind.Of(err), "a moved base stays retryable")
}

// A writer killed (SIGKILL, with its git) between creating main.lock and renaming it: the next
// process finishes the merge with no one's help and says which lock it removed.
func TestAWriterKilledInsideGitsRefUpdateIsRecoveredByTheNext(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	main := gitIn(t, dir, "rev-parse", "main")
	// The hook runs while git holds refs/heads/main.lock, after writing the new value into it.
	inside := filepath.Join(t.TempDir(), "inside")
	hook := filepath.Join(dir, "hooks", "reference-transaction")
	require.NoError(t, os.WriteFile(hook, []byte(`#!/bin/sh
if [ "$1" = prepared ] && [ -n "$LOCALGIT_TEST_HANG" ]; then touch "$LOCALGIT_TEST_HANG"; exec sleep 60; fi
`), 0o755))

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$")
	cmd.Env = append(os.Environ(), "LOCALGIT_TEST_REPO="+dir, "LOCALGIT_TEST_BRANCH="+mr.Branch, "LOCALGIT_TEST_HANG="+inside)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // kill -9 the worker and its git together
	require.NoError(t, cmd.Start())
	killed := false
	defer func() {
		if !killed {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	}()
	require.Eventually(t, func() bool { _, err := os.Stat(inside); return err == nil }, 30*time.Second, 10*time.Millisecond,
		"the helper's merge reaches the hook")
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	_ = cmd.Wait()
	killed = true
	// git locks HEAD too, as it points at main.
	locks := []string{filepath.Join(dir, "refs", "heads", "main.lock"), filepath.Join(dir, "HEAD.lock")}
	for _, lock := range locks {
		require.FileExists(t, lock, "the kill left git's lock behind")
		// The next worker: the activity's retry comes after the step's timeout, when the lock is old.
		age(t, lock, 30*time.Second)
	}
	assert.Equal(t, main, gitIn(t, dir, "rev-parse", "main"))

	var n notes
	next, err := New(dir)
	require.NoError(t, err)
	merged, err := next.Merge(n.ctx(), mr)
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
	assert.Equal(t, merged.MergeSHA+" "+main+" "+mr.HeadSHA, gitIn(t, dir, "rev-list", "--parents", "-1", "main"))
	for _, lock := range locks {
		assert.NoFileExists(t, lock)
	}
	assert.Contains(t, n.String(), "removed stale git lock refs/heads/main.lock")
	assert.Contains(t, n.String(), "removed stale git lock HEAD.lock")
	assert.Contains(t, n.String(), "age 30")
}

// TestKilledWriterHelper is the writer the test above kills; it does nothing on its own.
func TestKilledWriterHelper(t *testing.T) {
	dir := os.Getenv("LOCALGIT_TEST_REPO")
	if dir == "" {
		t.Skip("run by TestAWriterKilledInsideGitsRefUpdateIsRecoveredByTheNext")
	}
	f, err := New(dir)
	require.NoError(t, err)
	b := os.Getenv("LOCALGIT_TEST_BRANCH")
	_, err = f.Merge(context.Background(), forge.MergeRequest{ID: b, Branch: b})
	t.Fatalf("the merge was to be killed inside git, it returned %v", err)
}
