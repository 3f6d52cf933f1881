package argostack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

// process is one running component with its log file.
type process = proc.Process

// spawn starts bin (argv0 is its name, so ArgoCD's multi-call binary picks its role) with
// output to dir/<name>.log.
func spawn(dir, name, bin string, args, env []string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(dir, name+".log")
	p, err := proc.Start(name, cmd, logPath)
	if err != nil {
		return nil, fail(name, logPath, fmt.Errorf("start %s: %w", bin, err))
	}
	return p, nil
}

// failed wraps err with the component's log tail.
func failed(p *process, err error) error { return fail(p.Name, p.LogPath, err) }

func fail(name, logPath string, err error) error {
	return &ComponentError{Component: name, Err: err, LogPath: logPath, LogTail: proc.LogTail(logPath)}
}
