package postgres

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// CheckDataDir reports whether the server could use dir as a kept data directory: as root
// the server runs as the `postgres` OS user, which needs search permission on every parent
// (a home directory of mode 0700 stops it). It creates nothing.
func CheckDataDir(dir string) error {
	cred, err := serverCredential()
	if err != nil || cred == nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return &DataDirError{Dir: dir, Blocker: dir, Reason: err.Error()}
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Launch creates it, searchable by everyone.
		case err != nil:
			return &DataDirError{Dir: abs, Blocker: p, Reason: err.Error()}
		case !searchable(fi, cred):
			return &DataDirError{Dir: abs, Blocker: p, Reason: fmt.Sprintf(
				"mode %v does not let the %q OS user (which runs the server) enter it", fi.Mode().Perm(), Superuser)}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// searchable reports whether the user of cred may enter directory fi.
func searchable(fi fs.FileInfo, cred *syscall.Credential) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	perm := fi.Mode().Perm()
	switch {
	case !ok:
		return perm&0o001 != 0
	case st.Uid == cred.Uid:
		return perm&0o100 != 0
	case st.Gid == cred.Gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// useKeptDir prepares dir (created when missing) to hold a data directory that outlives the
// server; the log goes next to it.
func (s *Server) useKeptDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return &DataDirError{Dir: dir, Blocker: dir, Reason: err.Error()}
	}
	if err := CheckDataDir(abs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return &DataDirError{Dir: abs, Blocker: filepath.Dir(abs), Reason: err.Error()}
	}
	if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return &DataDirError{Dir: abs, Blocker: abs, Reason: err.Error()}
	}
	if s.cred != nil {
		if err := os.Chown(abs, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return &DataDirError{Dir: abs, Blocker: abs, Reason: err.Error()}
		}
	}
	s.kept, s.DataDir, s.LogPath = true, abs, abs+".log"
	return nil
}

// serverCredential is nil when not root; as root it is the postgres user's ids.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(Superuser)
	if err != nil {
		return nil, fmt.Errorf("running as root needs the %q OS user: %w", Superuser, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}
