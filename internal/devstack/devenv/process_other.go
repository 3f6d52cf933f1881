//go:build unix && !linux

package devenv

import "syscall"

// sysProcAttr puts the server in its own process group; only Linux offers Pdeathsig.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
