// Package proc runs the long-lived helper processes of the local stacks (ArgoCD,
// Gitea): each in its own process group, killed by the kernel if slipway dies,
// output appended to a log file, stopped with SIGTERM then SIGKILL.
package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopGrace is how long a process gets to exit on SIGTERM before SIGKILL; a safety net only.
const stopGrace = 10 * time.Second

// Process is one running process with its log file.
type Process struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// Start starts cmd with its output appended to logPath.
func Start(name string, cmd *exec.Cmd, logPath string) (*Process, error) {
	p := &Process{Name: name, LogPath: logPath, done: make(chan struct{})}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exited is nil while the process runs, else an error saying how it ended.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("exited: %v", p.waitErr)
	default:
		return nil
	}
}

// Stop sends SIGTERM to the group, then SIGKILL after a grace period, and waits.
func (p *Process) Stop() error {
	if p == nil || p.cmd == nil {
		return nil
	}
	pgid := -p.cmd.Process.Pid
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if err := syscall.Kill(pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("%s: signal %v: %w", p.Name, sig, err)
		}
		select {
		case <-p.done:
			// Children that ignored SIGTERM must not outlive the leader.
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			return nil
		case <-time.After(stopGrace):
		}
	}
	return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.Name, p.cmd.Process.Pid)
}

// Kill sends SIGKILL to the whole group at once, as a crash would, and waits for the leader.
func (p *Process) Kill() error {
	if p == nil || p.cmd == nil {
		return nil
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s: kill: %w", p.Name, err)
	}
	<-p.done
	return nil
}

// Pid is the leader's process ID (also the group's).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogTail is the end of the log at path, for error messages.
func LogTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return Tail(data)
}

// Tail is the last 4 KiB of data.
func Tail(data []byte) string {
	const max = 4096
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return string(data)
}
