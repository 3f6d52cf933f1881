// Package bwrap holds what every bubblewrap sandbox of slipway's sees of the host: the system
// directories, read-only, and the few parts of /etc a program needs.
package bwrap

import (
	"os"
	"path"
)

// etcAllowed are the only parts of /etc a sandbox sees: name resolution, users, TLS roots and
// Debian's alternatives (awk and friends are links through /etc/alternatives). Never all of
// /etc: it may hold the worker's keys and, for root, /etc/shadow.
var etcAllowed = []string{"alternatives", "passwd", "group", "hosts", "resolv.conf", "nsswitch.conf", "host.conf",
	"ssl/certs", "ca-certificates", "ca-certificates.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"localtime", "os-release", "mime.types", "protocols", "services"}

// rootDirs are the top-level system directories bound read-only (or linked, on merged /usr).
var rootDirs = []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"}

// System are bwrap arguments that show /usr, the system library and binary dirs and the
// allowed parts of /etc, all read-only, plus a fresh /proc, /dev and private /tmp.
func System() []string {
	args := []string{"--ro-bind", "/usr", "/usr"}
	for _, d := range rootDirs {
		p := "/" + d
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(p); err == nil {
				args = append(args, "--symlink", target, p)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", p, p)
		}
	}
	for _, e := range etcAllowed {
		p := path.Join("/etc", e)
		args = append(args, "--ro-bind-try", p, p)
	}
	return append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
}
