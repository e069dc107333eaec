package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// Launcher starts members: as child processes (Processes), which can be
// killed like a crashed machine, or inside this process (InProcess).
type Launcher interface {
	launch(dir string, l layout, i int) (*running, error)
}

// running is one started member.
type running struct {
	ready chan struct{} // closed once the member serves
	done  chan struct{} // closed once it has exited; err is set before
	err   error
	stop  func() // asks it to stop cleanly
	kill  func() // stops it at once, without a clean shutdown where it can
}

// Processes returns a Launcher that runs each member as a child process.
// command returns the command of a member: a program that calls MemberMain
// with args (typically this program again, with a hidden subcommand). The
// child is put in its own process group, so that a terminal's Ctrl-C
// reaches only the parent, which stops the members in order; on Linux it
// receives SIGTERM if the parent dies. Its standard error goes to the
// member's log file.
func Processes(command func(args []string) *exec.Cmd) Launcher {
	return processes{command: command}
}

type processes struct {
	command func(args []string) *exec.Cmd
}

func (p processes) launch(dir string, l layout, i int) (*running, error) {
	cmd := p.command(memberArgs(dir, i))
	logFile, err := os.OpenFile(l.logPath(dir, i), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	// An os.Pipe rather than cmd.StdoutPipe: Wait may then run while the
	// pipe is still read.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdoutW, logFile
	cmd.SysProcAttr = memberProcAttr()
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdoutR.Close()
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", l.Members[i].Name, err)
	}
	r := &running{
		ready: make(chan struct{}),
		done:  make(chan struct{}),
		stop:  func() { _ = cmd.Process.Signal(syscall.SIGTERM) },
		kill:  func() { _ = cmd.Process.Kill() },
	}
	go func() {
		defer stdoutR.Close()
		lines := bufio.NewScanner(stdoutR)
		for lines.Scan() {
			if lines.Text() == readyLine {
				close(r.ready)
				break
			}
		}
		// Keep reading, so that the member never writes to a closed pipe.
		_, _ = io.Copy(io.Discard, stdoutR)
	}()
	go func() {
		r.err = cmd.Wait()
		logFile.Close()
		close(r.done)
	}()
	return r, nil
}

// InProcess returns a Launcher that runs each member in this process. Its
// kill is a clean stop: nothing can crash one member of a process alone.
func InProcess() Launcher { return inProcess{} }

type inProcess struct{}

func (inProcess) launch(dir string, _ layout, i int) (*running, error) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{ready: make(chan struct{}), done: make(chan struct{}), stop: cancel, kill: cancel}
	go func() {
		r.err = RunMember(ctx, dir, i, func() { close(r.ready) })
		cancel()
		close(r.done)
	}()
	return r, nil
}
