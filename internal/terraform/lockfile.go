package terraform

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// LockFile is terraform's dependency lock file, as a stack ships it in its terraform/ directory.
const LockFile = depLockFile

// lockModeFile records beside the files how Init treats the lock file: lockReadonly, or
// lockRecord and a revision. Absent, init is terraform's plain one (a proposed config's dry run).
const lockModeFile = scratchPrefix + "lockfile"

const (
	lockReadonly = "readonly"
	lockRecord   = "record "
)

// LockStore keeps the lock file of the first init at each revision of a workspace, so every
// worker initialises that revision with the same provider versions. A PlanStore may implement it.
type LockStore interface {
	// RecordLock keeps lock as ws's lock file at rev unless one is kept there already; it
	// returns the one kept, so workers racing on a first init agree on one.
	RecordLock(ctx context.Context, ws Workspace, rev string, lock []byte) ([]byte, error)
	// RecordedLock is the lock file kept at rev, or the newest one of ws when rev is ""; nil when none.
	RecordedLock(ctx context.Context, ws Workspace, rev string) ([]byte, error)
}

// lockFor picks the lock file and init mode of a workspace whose stack ships none: the one
// recorded at its revision, enforced; else the newest recorded one as a seed (terraform keeps
// its versions where the configuration allows them), recorded after init.
func (r *Runner) lockFor(ctx context.Context, ws Workspace) (lock []byte, mode string, err error) {
	ls, ok := r.plans.(LockStore)
	if !ok {
		return nil, "", nil
	}
	if ws.Revision != "" {
		rec, err := ls.RecordedLock(ctx, ws, ws.Revision)
		if err != nil || rec != nil {
			return rec, lockReadonly, err
		}
	}
	seed, err := ls.RecordedLock(ctx, ws, "")
	if err != nil {
		return nil, "", err
	}
	if ws.Revision != "" {
		mode = lockRecord + ws.Revision
	}
	return seed, mode, nil
}

// lockMode is how Init treats the workspace's lock file, as Prepare recorded it.
func (r *Runner) lockMode(ws Workspace) string {
	return r.record(ws, lockModeFile)
}

// initArgs are terraform init's arguments when slipway runs it itself (terraform-exec has no
// -lockfile option): readonly refuses any provider the lock file does not name, at its version and hashes.
func initArgs(backendConfig []string, reconfigure bool) []string {
	args := []string{"init", "-no-color", "-input=false", "-lockfile=readonly"}
	for _, bc := range backendConfig {
		args = append(args, "-backend-config="+bc)
	}
	if reconfigure {
		args = append(args, "-reconfigure")
	}
	return args
}

// runDirect runs the terraform c wraps with args, as terraform-exec would: c's environment,
// interrupted with SIGINT when ctx ends and killed after the wait delay.
func (c *call) runDirect(ctx context.Context, args []string) error {
	_, binary, err := c.r.engineOf(c.ws)
	if err != nil {
		return err
	}
	bin, err := c.r.execPath(c.ws, c.env, binary, c.command)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.r.Dir(c.ws)
	env := c.runEnv
	if env == nil {
		env = c.env
	}
	cmd.Env = []string{"TF_IN_AUTOMATION=1"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = c.r.waitDelay
	cmd.SysProcAttr = procAttr()
	cmd.Stdout, cmd.Stderr = io.Discard, c.stderr
	if c.r.out != nil {
		cmd.Stdout, cmd.Stderr = c.r.out, io.MultiWriter(c.r.out, c.stderr)
	}
	if err := cmd.Run(); err != nil {
		return c.fail(err)
	}
	return nil
}

// recordLock keeps the lock file the first init at rev wrote; when another worker recorded
// first, its lock file replaces this one and init runs again enforcing it.
func (r *Runner) recordLock(ctx context.Context, ws Workspace, rev string, initAgain func() error) error {
	ls, ok := r.plans.(LockStore)
	if !ok {
		return nil
	}
	dir := r.Dir(ws)
	mine, err := readOwn(filepath.Join(dir, depLockFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a configuration without providers has no lock file
	}
	if err != nil {
		return &CommandError{Command: "init", Workspace: ws, Err: err}
	}
	kept, err := ls.RecordLock(ctx, ws, rev, mine)
	if err != nil {
		return storeErr(ws, "init (recording the lock file)", err)
	}
	if err := writeIfChanged(filepath.Join(r.recordDir(ws), lockModeFile), []byte(lockReadonly)); err != nil {
		return &CommandError{Command: "init", Workspace: ws, Err: err}
	}
	if bytes.Equal(kept, mine) {
		return nil
	}
	if err := writeIfChanged(filepath.Join(dir, depLockFile), kept); err != nil {
		return &CommandError{Command: "init", Workspace: ws, Err: err}
	}
	return initAgain()
}

// localLocks are localPlans' lock files: <plans>/<tenant>/<name>/locks/<rev>.hcl, and the newest.
const (
	locksDir   = "locks"
	newestLock = "newest"
)

func (l localPlans) RecordLock(_ context.Context, ws Workspace, rev string, lock []byte) ([]byte, error) {
	if !planNameRE.MatchString(rev) || rev == newestLock {
		return nil, &InvalidInputError{Field: "revision", Value: rev, Reason: "must be a commit id"}
	}
	target := l.path(ws, locksDir, rev+".hcl")
	if err := os.MkdirAll(filepath.Dir(target), dirPerm); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), tmpPrefix+"*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(lock); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	// A link fails when the target exists: the first recorder wins, atomically.
	if err := os.Link(tmp.Name(), target); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	kept, err := os.ReadFile(target)
	if err != nil {
		return nil, err
	}
	return kept, writeIfChanged(l.path(ws, locksDir, newestLock+".hcl"), kept)
}

func (l localPlans) RecordedLock(_ context.Context, ws Workspace, rev string) ([]byte, error) {
	name := newestLock
	if rev != "" {
		if !planNameRE.MatchString(rev) || rev == newestLock {
			return nil, &InvalidInputError{Field: "revision", Value: rev, Reason: "must be a commit id"}
		}
		name = rev
	}
	b, err := os.ReadFile(l.path(ws, locksDir, name+".hcl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

var _ LockStore = localPlans{}

// Reset forgets what was captured, before a command runs again.
func (t *tailBuffer) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = t.b[:0]
}
