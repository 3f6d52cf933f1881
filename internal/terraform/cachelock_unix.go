//go:build unix

package terraform

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// cacheLockFile is the flock that one plugin cache's inits take, across processes.
const cacheLockFile = ".slipway-init.lock"

// cacheBusyFile is in the cache while an init holds it. Found by the next holder of the flock
// (which the kernel released when the last one died), it means an init was killed while it
// wrote the cache, maybe halfway through a provider: the cache is emptied, being only a cache.
const cacheBusyFile = ".slipway-init.running"

// lockDir takes an exclusive flock in dir, waiting for it until ctx ends, and empties dir
// when the last holder died holding it.
func lockDir(ctx context.Context, dir string) (func(), error) {
	unflock, err := flockDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	busy := filepath.Join(dir, cacheBusyFile)
	if _, err = os.Lstat(busy); err == nil {
		err = emptyDir(dir, cacheLockFile)
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = os.WriteFile(busy, nil, filePerm)
	}
	if err != nil {
		unflock()
		return nil, err
	}
	return func() { os.Remove(busy); unflock() }, nil
}

// emptyDir removes everything in dir but keep.
func emptyDir(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == keep {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// flockDir takes an exclusive flock in dir, waiting for it until ctx ends.
func flockDir(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, cacheLockFile), os.O_CREATE|os.O_RDWR, filePerm)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		// Another process's init holds the cache: a blocking flock could not be cancelled.
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
