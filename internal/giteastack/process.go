package giteastack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopGrace is how long gitea gets to shut down on SIGTERM before SIGKILL; a safety net only.
const stopGrace = 10 * time.Second

// process is the running `gitea web`.
type process struct {
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// spawn starts cmd with output appended to logPath, in its own process group, killed by
// the kernel if the parent dies.
func spawn(cmd *exec.Cmd, logPath string) (*process, error) {
	p := &process{logPath: logPath, done: make(chan struct{})}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
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
			return fmt.Errorf("gitea: signal %v: %w", sig, err)
		}
		select {
		case <-p.done:
			// Children (git) that ignored SIGTERM must not outlive gitea.
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			return nil
		case <-time.After(stopGrace):
		}
	}
	return fmt.Errorf("gitea (pid %d) did not exit after SIGKILL", p.cmd.Process.Pid)
}

// run runs one gitea subcommand to completion; its output goes to the log (and is returned).
func run(ctx context.Context, step, logPath string, cmd *exec.Cmd) ([]byte, error) {
	out, err := cmd.CombinedOutput()
	if f, ferr := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); ferr == nil {
		fmt.Fprintf(f, "--- gitea %s ---\n%s", step, out)
		f.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out, &ComponentError{Step: step, Err: err, LogPath: logPath, LogTail: tail(out)}
	}
	return out, nil
}

func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return tail(data)
}

func tail(data []byte) string {
	const max = 4096
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return string(data)
}
