package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ParamEnvPrefix starts the variable that gives an exec hook each instance parameter:
// parameter db-size is SLIPWAY_PARAM_DB_SIZE (upper case, anything but letters and digits '_').
const ParamEnvPrefix = "SLIPWAY_PARAM_"

// waitDelay bounds how long Wait waits for pipes after the hook exits or is killed.
const waitDelay = time.Second

// runExec makes one call of an exec hook: the script runs from a fresh temp dir under the
// runner's Sandbox, in its own process group, which is killed as a whole when ctx ends and
// when the script exits (in bwrap, with its whole PID namespace).
func (r *Runner) runExec(ctx context.Context, c Call, n int, out *tailBuffer) (string, error) {
	doc, err := documentFor(c, n)
	if err != nil {
		return "", fmt.Errorf("%s hook: %w", c.Spec.Name, err)
	}
	dir, err := os.MkdirTemp("", "slipway-hook-")
	if err != nil {
		return "", fmt.Errorf("%s hook: %w", c.Spec.Name, err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, path.Base(c.Spec.Exec))
	if err := os.WriteFile(script, c.Script, 0o700); err != nil {
		return "", fmt.Errorf("%s hook: %w", c.Spec.Name, err)
	}
	env := r.env(c, n)
	for _, f := range r.Files {
		// Top-level, so the user sandbox's chown covers it; the variable holds the path the script sees.
		name := ".credential-" + f.Name
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o600); err != nil {
			return "", fmt.Errorf("%s hook: %w", c.Spec.Name, err)
		}
		seen := filepath.Join(dir, name)
		if r.Sandbox.Mode == SandboxBwrap {
			seen = path.Join(sandboxDir, name)
		}
		env = append(env, f.Env+"="+seen)
	}
	var answer lastLine
	cmd, err := startScript(ctx, func() (*exec.Cmd, error) {
		cmd, err := r.Sandbox.command(ctx, c.Spec.Name, dir, script, bytes.HasPrefix(c.Script, []byte("#!")))
		if err != nil {
			return nil, err
		}
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(doc)
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&answer, out), out
		return cmd, nil
	})
	var refused *RefusedError
	if errors.As(err, &refused) {
		return "", &FailedError{Hook: c.Spec.Name, Kind: KindExec, Target: c.Spec.Exec, Call: n, ExitCode: -1, Err: refused.Error()}
	}
	if err != nil {
		return "", &FailedError{Hook: c.Spec.Name, Kind: KindExec, Target: c.Spec.Exec, Call: n, Err: err.Error()}
	}
	err = cmd.Wait()
	// Children left behind (say `sleep 600 &`) must not outlive their hook.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; only a leftover child held its pipes open
	}
	if err == nil {
		return answer.String(), nil
	}
	fe := &FailedError{Hook: c.Spec.Name, Kind: KindExec, Target: c.Spec.Exec, Call: n, ExitCode: -1, Output: out.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		fe.ExitCode = ee.ExitCode()
	} else {
		fe.Err = err.Error()
	}
	return "", fe
}

// startScript starts a fresh command, retrying "text file busy": another goroutine's fork
// can briefly hold the just-written script open (golang/go#22315).
func startScript(ctx context.Context, newCmd func() (*exec.Cmd, error)) (*exec.Cmd, error) {
	for attempt := 1; ; attempt++ {
		cmd, err := newCmd()
		if err != nil {
			return nil, err
		}
		err = cmd.Start()
		if err == nil || !errors.Is(err, syscall.ETXTBSY) || attempt == 5 {
			return cmd, err
		}
		if err := sleepCtx(ctx, time.Duration(attempt)*20*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// env is the hook's environment: the runner's base plus what the hook is told.
func (r *Runner) env(c Call, n int) []string {
	current, _ := json.Marshal(c.Current)
	next, _ := json.Marshal(c.Next)
	env := append(slices.Clip(r.Env),
		"SLIPWAY_HOOK="+c.Spec.Name,
		"SLIPWAY_OPERATION="+c.Operation,
		"SLIPWAY_TENANT="+c.Tenant,
		"SLIPWAY_NAME="+c.Name,
		"SLIPWAY_INSTANCE_STATE="+string(current),
		"SLIPWAY_INSTANCE_NEXT_STATE="+string(next),
		"SLIPWAY_CALL="+strconv.Itoa(n),
	)
	names := make([]string, 0, len(c.Outputs))
	for k := range c.Outputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, "SLIPWAY_OUTPUT_"+envName(k)+"="+contract.OutputString(c.Outputs[k]))
	}
	// Tenant values reach a script as data, never as code: stacks read them from here.
	names = names[:0]
	for k := range c.Parameters {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, ParamEnvPrefix+envName(k)+"="+contract.OutputString(c.Parameters[k]))
	}
	return env
}

// envName upper-cases an output name and turns anything but letters and digits into '_'.
func envName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}
