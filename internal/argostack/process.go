package argostack

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// stopGrace is how long a component gets to exit on SIGTERM before SIGKILL; a safety net only.
const stopGrace = 10 * time.Second

// process is one running component with its log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// spawn starts bin (argv0 is its name, so ArgoCD's multi-call binary picks its role) with
// output to dir/<name>.log, in its own process group, killed by the kernel if the test dies.
func spawn(dir, name, bin string, args, env []string) (*process, error) {
	p := &process{name: name, logPath: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, p.fail(fmt.Errorf("start %s: %w", bin, err))
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited is nil while the process runs, else an error saying how it ended.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("exited: %v", p.waitErr)
	default:
		return nil
	}
}

// stop sends SIGTERM to the group, then SIGKILL after stopGrace, and waits.
func (p *process) stop() error {
	if p == nil || p.cmd == nil {
		return nil
	}
	pgid := -p.cmd.Process.Pid
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if err := syscall.Kill(pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("%s: signal %v: %w", p.name, sig, err)
		}
		select {
		case <-p.done:
			// Children that ignored SIGTERM must not outlive the leader.
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			return nil
		case <-time.After(stopGrace):
		}
	}
	return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
}

// fail wraps err with this component's log tail.
func (p *process) fail(err error) error {
	return &ComponentError{Component: p.name, Err: err, LogPath: p.logPath, LogTail: logTail(p.logPath)}
}

func logTail(path string) string {
	const max = 4096
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return string(data)
}
