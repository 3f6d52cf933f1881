//go:build !unix

package terraform

import "os"

// openOwn opens p to read unless it is a symlink.
func openOwn(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, notOwn(p)
	}
	return os.Open(p)
}
