package localgit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sys/unix"

	"github.com/slipway-dev/slipway/internal/forge"
)

// writerLockName is the file in the git directory every slipway writer of the repository
// holds a flock on while it writes. The kernel drops a flock when its holder dies, so a git
// lock file found while holding it was left by a writer that is gone (a kill -9 inside git).
const writerLockName = "slipway-writer.flock"

// gitLockNames are git's own lock files outside refs/ (every *.lock under refs/ is one too).
var gitLockNames = []string{"index.lock", "packed-refs.lock", "HEAD.lock", "config.lock", "shallow.lock"}

// staleLock is a git lock file a dead writer left, removed before writing.
type staleLock struct {
	Path string        // relative to the git directory, e.g. refs/heads/main.lock
	Age  time.Duration // how old it was when it was removed
}

// writing runs fn holding the repository's writer lock, after removing the git lock files
// older than cfg.staleAfter that dead writers left. A live holder that keeps the lock past
// cfg.lockWait is a *forge.LockedError; a repository that cannot take the lock, or a stale
// lock that cannot be removed, an *UnwritableError.
func (f *Forge) writing(ctx context.Context, fn func() error) error {
	unlock, err := f.lockWriters(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	cleared, err := f.clearStaleLocks()
	for _, l := range cleared {
		report(ctx, f.git.gitDir, l)
	}
	if err != nil {
		return err
	}
	return fn()
}

// lockWriters takes the writer lock, polling so the wait ends with ctx or cfg.lockWait.
func (f *Forge) lockWriters(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(f.git.gitDir, writerLockName)
	fd, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, unwritable(path, err)
	}
	deadline := time.Now().Add(f.cfg.lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err = unix.Flock(int(fd.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { fd.Close() }, nil // closing the file releases the flock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			fd.Close()
			return nil, unwritable(path, err)
		}
		if time.Now().After(deadline) {
			fd.Close()
			return nil, &forge.LockedError{What: fmt.Sprintf("%s (a live slipway writer has held it over %s)", path, f.cfg.lockWait)}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			fd.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// clearStaleLocks removes the git lock files older than cfg.staleAfter. It runs under the
// writer lock, so no slipway writer is alive to own them; the age spares a person's push
// that is running right now, since git itself takes no part in slipway's lock.
func (f *Forge) clearStaleLocks() ([]staleLock, error) {
	dir := f.git.gitDir
	var paths []string
	for _, name := range gitLockNames {
		paths = append(paths, filepath.Join(dir, name))
	}
	err := filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".lock") {
			paths = append(paths, p)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, unwritable(filepath.Join(dir, "refs"), err)
	}
	var cleared []staleLock
	now := time.Now()
	for _, p := range paths {
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return cleared, unwritable(p, err)
		}
		age := now.Sub(st.ModTime())
		if age < f.cfg.staleAfter {
			continue // maybe a push outside slipway at work: git's own failure says "locked" (retryable)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return cleared, &UnwritableError{Path: p, Cause: "a stale git lock file cannot be removed: " + causeOf(err), Err: err}
		}
		rel, _ := filepath.Rel(dir, p)
		cleared = append(cleared, staleLock{Path: rel, Age: age.Round(time.Millisecond)})
	}
	return cleared, nil
}

// report logs a cleared lock to the calling step (forge.Note) and its trace span.
func report(ctx context.Context, gitDir string, l staleLock) {
	msg := "localgit: removed stale git lock " + l.Path + " left by a dead writer"
	forge.Note(ctx, msg, "repo", gitDir, "lock", l.Path, "age", l.Age.String())
	trace.SpanFromContext(ctx).AddEvent("stale git lock removed",
		trace.WithAttributes(attribute.String("lock", filepath.Join(gitDir, l.Path)), attribute.String("age", l.Age.String())))
}

// CheckWritable says why the repository cannot be written, or nil: it takes the writer lock
// (removing stale git locks) and writes and removes a file beside the base branch's ref.
func (f *Forge) CheckWritable(ctx context.Context) error {
	return f.writing(ctx, func() error {
		dir := filepath.Join(f.git.gitDir, filepath.Dir(f.baseRef()))
		probe, err := os.CreateTemp(dir, "slipway-probe-*.lock") // *.lock: never read as a ref
		if err != nil {
			return unwritable(dir, err)
		}
		_, err = probe.Write([]byte("probe\n"))
		if cerr := probe.Close(); err == nil {
			err = cerr
		}
		os.Remove(probe.Name())
		if err != nil {
			return unwritable(dir, err)
		}
		return nil
	})
}
