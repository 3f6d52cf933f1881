//go:build unix

package terraform

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// cacheLockFile is the flock that one plugin cache's inits take, across processes.
const cacheLockFile = ".slipway-init.lock"

// CacheBusyFile is in the cache while an init holds it. Found by the next holder of the flock
// (which the kernel released when the last one died), it means an init was killed while it
// wrote the cache, maybe halfway through a provider: the cache is emptied, being only a cache.
const CacheBusyFile = ".slipway-init.running"

// lockDir takes an exclusive flock in dir, waiting for it until ctx ends, and empties dir
// when the last holder died holding it.
func lockDir(ctx context.Context, dir string) (func(), error) {
	unflock, err := flockDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	busy := filepath.Join(dir, CacheBusyFile)
	var mark fs.FileInfo
	if mark, err = os.Lstat(busy); err == nil {
		var removed []string
		if removed, err = emptyDir(dir, cacheLockFile, CacheBusyFile); err == nil {
			age := time.Since(mark.ModTime()).Round(time.Millisecond)
			noteRepair(ctx, "terraform: emptied the plugin cache: an init killed while it installed providers left "+CacheBusyFile,
				"cache", dir, "mark", busy, "age", age.String(), "removed", strings.Join(removed, ","))
		}
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

// emptyDir removes everything in dir but keep, and names what it removed.
func emptyDir(dir string, keep ...string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if slices.Contains(keep, e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return removed, err
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
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
