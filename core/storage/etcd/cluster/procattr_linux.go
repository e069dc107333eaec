package cluster

import "syscall"

// memberProcAttr puts a member process in its own process group and has
// the kernel send it SIGTERM when its parent dies, so that no member
// outlives a supervisor that was killed.
func memberProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
