//go:build !linux

package terraform

import "syscall"

// procAttr has no parent-death signal here.
func procAttr() *syscall.SysProcAttr { return nil }
