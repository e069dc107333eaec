//go:build unix && !linux

package cluster

import "syscall"

// memberProcAttr puts a member process in its own process group. Outside
// Linux nothing stops a member whose supervisor was killed.
func memberProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
