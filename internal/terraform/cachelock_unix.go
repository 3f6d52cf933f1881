//go:build unix

package terraform

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// cacheLockFile is the flock that one plugin cache's inits take, across processes.
const cacheLockFile = ".slipway-init.lock"

// lockDir takes an exclusive flock in dir, waiting for it until ctx ends.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
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
