package giteastack

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

// process is the running `gitea web`.
type process = proc.Process

func spawn(cmd *exec.Cmd, logPath string) (*process, error) { return proc.Start("gitea", cmd, logPath) }

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

func logTail(path string) string { return proc.LogTail(path) }

func tail(data []byte) string { return proc.Tail(data) }
