package terraform

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/slipway-dev/slipway/internal/bwrap"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/escaping"
)

// Settings wiring code reads: EnvSandbox confines terraform (unset or "bwrap": bubblewrap;
// "none-insecure": unconfined); EnvSandboxBinds lists more host paths (comma-separated,
// absolute) terraform may write there.
const (
	EnvSandbox      = "SLIPWAY_TERRAFORM_SANDBOX"
	EnvSandboxBinds = "SLIPWAY_TERRAFORM_SANDBOX_BINDS"
	// SandboxBwrap and SandboxNoneInsecure are EnvSandbox's values.
	SandboxBwrap        = "bwrap"
	SandboxNoneInsecure = "none-insecure"
)

// sandboxUID is who terraform runs as inside bubblewrap's user namespace: nobody.
const sandboxUID = "65534"

// SandboxRefusedError is a terraform command on a worker that has no working sandbox and
// was not told to run terraform unconfined: a tenant's configuration would run beside the
// worker's keys.
type SandboxRefusedError struct{ Reason string }

func (e *SandboxRefusedError) Error() string {
	return "terraform refused on this worker: its bubblewrap sandbox does not work here (" + e.Reason + "); make it work, or set " +
		EnvSandbox + "=" + SandboxNoneInsecure + " to run terraform unconfined, where a configuration can read the worker's files and processes"
}

// Is makes the refusal NotAllowed: this worker does not accept the step; retrying here cannot help.
func (e *SandboxRefusedError) Is(target error) bool { return target == errkind.NotAllowed }

// WithSandboxRefused refuses every terraform command with *SandboxRefusedError: the worker's
// sandbox does not work (reason) and the operator did not allow terraform unconfined.
func WithSandboxRefused(reason string) Option {
	return func(r *Runner) { r.refused = &SandboxRefusedError{Reason: reason} }
}

// WithUnconfined runs terraform without a sandbox because the operator said so
// (EnvSandbox=none-insecure); warn is called before every command, so each step says it.
func WithUnconfined(warn func(ctx context.Context, ws Workspace, command string)) Option {
	return func(r *Runner) { r.unconfined = warn }
}

// WithSandbox runs every terraform command in bubblewrap (bin) as nobody: its own user, PID,
// mount, IPC and UTS namespaces, the system dirs read-only, and of the worker's files only the
// instance's working directory, local state and HOME (read-write), the engine, the provider
// mirror and plugin cache (read-only but for init) and terraform's CLI config. A local-exec then
// sees neither the worker's processes (/proc/<worker>/environ) nor its files, nor other instances'.
// binds are more host paths it may write (say where a provisioner logs), at the same path.
func WithSandbox(bin string, binds ...string) Option {
	return func(r *Runner) {
		for _, b := range binds {
			if !filepath.IsAbs(b) || filepath.Clean(b) != b || b == "/" {
				r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: EnvSandboxBinds, Value: b,
					Reason: "must be a clean absolute path other than /"})
			}
		}
		r.bwrap, r.bwrapBinds = bin, binds
	}
}

// wrapperScript runs terraform in bwrap and passes INT and TERM on to it: terraform-exec
// interrupts the process it started, and bwrap forwards no signal, so the script reads the
// sandboxed terraform's pid from bwrap's --info-fd (terraform runs as the namespace's pid 1,
// which takes a signal it handles). Killing the script kills bwrap (--die-with-parent), and with
// it every process in the namespace. The command line (bwrap, its binds, the engine) comes in
// sandboxArgv, shell-quoted: one script serves every workspace, written once when the runner is
// made, because a file written while other goroutines fork can fail to exec ("text file busy").
const wrapperScript = `#!/bin/sh
# Written by slipway: terraform in bubblewrap, with interrupts passed on to it.
argv=$` + sandboxArgv + `
unset ` + sandboxArgv + `
[ -n "$argv" ] || { echo "slipway: no sandbox command line" >&2; exit 125; }
info=$(mktemp) || exit 125
eval "set -- $argv \"\$@\""
"$@" 3>"$info" &
b=$!
fwd() { p=$(sed -n 's/.*"child-pid": *\([0-9][0-9]*\).*/\1/p' "$info"); [ -n "$p" ] && kill -"$1" "$p" 2>/dev/null; }
trap 'fwd INT' INT
trap 'fwd TERM' TERM
while :; do
	wait "$b"
	rc=$?
	kill -0 "$b" 2>/dev/null || break
done
rm -f "$info"
exit "$rc"
`

// sandboxArgv is the variable that hands the wrapper its command line; it never reaches terraform.
const sandboxArgv = "SLIPWAY_SANDBOX_ARGV"

// wrapperPath is the sandbox's one wrapper script.
func (r *Runner) wrapperPath() string { return filepath.Join(r.stateDir, "sandbox", "terraform") }

// writeWrapper writes the wrapper once, before any terraform runs.
func (r *Runner) writeWrapper() error {
	if r.bwrap == "" {
		return nil
	}
	return writeModeIfChanged(r.wrapperPath(), []byte(wrapperScript), 0o700)
}

// execPath is what terraform-exec runs for command in ws: the engine binary, or the sandbox's
// wrapper script.
func (r *Runner) execPath(ws Workspace, env map[string]string, binary, command string) (string, error) {
	if r.bwrap == "" {
		return binary, nil
	}
	binds := [][2]string{{"--bind", r.Dir(ws)}, {"--bind", r.homeDir(ws)}}
	if r.Backend() == backendLocal {
		dir := filepath.Dir(r.statePath(ws))
		if err := os.MkdirAll(dir, dirPerm); err != nil {
			return "", err
		}
		binds = append(binds, [2]string{"--bind", dir})
	}
	if !strings.HasPrefix(binary, "/usr/") {
		binds = append(binds, [2]string{"--ro-bind", filepath.Dir(binary)})
	}
	if d := env["TF_PLUGIN_CACHE_DIR"]; d != "" {
		// Only init installs providers: no other command may change what another instance runs.
		mode := "--ro-bind-try"
		if command == "init" {
			mode = "--bind-try"
		}
		binds = append(binds, [2]string{mode, d})
	}
	if f := env["TF_CLI_CONFIG_FILE"]; f != "" {
		binds = append(binds, [2]string{"--ro-bind-try", f})
	}
	if r.mirrorDir != "" {
		binds = append(binds, [2]string{"--ro-bind-try", r.mirrorDir})
	}
	for _, b := range r.bwrapBinds {
		binds = append(binds, [2]string{"--bind-try", b})
	}
	args := []string{"--unshare-all", "--unshare-user", "--share-net", "--die-with-parent", "--new-session",
		"--as-pid-1", "--cap-drop", "ALL", "--uid", sandboxUID, "--gid", sandboxUID}
	args = append(args, bwrap.System()...)
	for _, b := range binds {
		args = append(args, b[0], b[1], b[1])
	}
	args = append(args, "--chdir", r.Dir(ws))
	words := make([]string, 0, len(args)+4)
	for _, a := range append(append([]string{r.bwrap, "--info-fd", "3"}, args...), "--", binary) {
		w, err := escaping.ShellWord(a)
		if err != nil {
			return "", err
		}
		words = append(words, w)
	}
	env[sandboxArgv] = strings.Join(words, " ")
	return r.wrapperPath(), nil
}
