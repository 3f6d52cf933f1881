//go:build unix

package terraform

import (
	"errors"
	"os"
	"syscall"
)

// openOwn opens p to read, neither through a symlink nor waiting on a FIFO.
func openOwn(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, notOwn(p)
	}
	return f, err
}
