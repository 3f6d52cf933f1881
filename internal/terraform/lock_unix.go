//go:build unix

package terraform

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// fileLockHeld asks (F_GETLK, without locking) whether another process holds the fcntl
// write lock terraform's local backend takes on the state file.
func fileLockHeld(statePath string) (bool, error) {
	f, err := openOwn(statePath) // terraform's code may have left a link or a FIFO there
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, notOwn(statePath)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: int16(io.SeekStart)}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, err
	}
	return lk.Type != syscall.F_UNLCK, nil
}
