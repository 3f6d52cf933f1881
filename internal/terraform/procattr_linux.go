package terraform

import "syscall"

// procAttr puts a terraform slipway runs itself in its own process group and kills it with the worker.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
