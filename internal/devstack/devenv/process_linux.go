package devenv

import "syscall"

// sysProcAttr puts the server in its own process group (so Stop reaches all of it)
// and has the kernel kill it if this process dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
