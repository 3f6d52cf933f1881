package localdirs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CreateOnce writes data to path unless path exists, whole or not at all: it is written to a
// temporary file beside path and linked into place, so a process killed halfway never leaves
// a short file (an empty key file would stop every later start). created is false when path
// existed; the first of racing creators wins.
func CreateOnce(path string, data []byte, perm fs.FileMode) (created bool, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync() // a host crash must not link an empty file either
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, nil
}
