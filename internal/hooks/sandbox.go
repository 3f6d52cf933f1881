package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path"
	"strconv"
	"syscall"

	"github.com/slipway-dev/slipway/internal/bwrap"
)

// Confinement modes of exec hooks, from SLIPWAY_HOOK_SANDBOX.
const (
	// SandboxBwrap runs a hook in bubblewrap: its own user, PID, mount, IPC and UTS namespaces,
	// a read-only view of the system directories, a private /tmp, and nothing of the worker's.
	SandboxBwrap = "bwrap"
	// SandboxUser runs a hook as a dedicated unprivileged user (SLIPWAY_HOOK_USER).
	SandboxUser = "user"
	// SandboxNone runs a hook as the worker's own user: only when the operator says so.
	SandboxNone = "none"
)

// Settings the confinement is read from.
const (
	EnvSandbox  = "SLIPWAY_HOOK_SANDBOX"
	EnvHookUser = "SLIPWAY_HOOK_USER"
	EnvBwrap    = "SLIPWAY_BWRAP"
)

// sandboxDir is where a hook's scratch directory appears inside bwrap: its cwd and HOME.
const sandboxDir = "/hook"

// nobody is the user a hook runs as inside bwrap's user namespace.
const nobody = 65534

// Sandbox says how exec hooks are confined. The zero value refuses to run them.
type Sandbox struct {
	Mode string
	// Bwrap is the bubblewrap binary (SandboxBwrap).
	Bwrap string
	// UID and GID are the dedicated user's (SandboxUser).
	UID, GID uint32
	// User names it, for messages.
	User string
}

// String is the one line a worker logs at start about its hooks' confinement.
func (s Sandbox) String() string {
	switch s.Mode {
	case SandboxBwrap:
		return "exec hooks run in bubblewrap (" + s.Bwrap + "): own user, PID and mount namespaces, read-only system dirs, private /tmp, network shared"
	case SandboxUser:
		return fmt.Sprintf("exec hooks run as the dedicated user %s (uid %d): bubblewrap is not available, so a hook sees the host's processes and world-readable files, and a child that leaves its process group outlives the hook", s.User, s.UID)
	case SandboxNone:
		return "exec hooks run UNCONFINED as the worker's own user (" + EnvSandbox + "=none): a hook can read the worker's files and /proc/<worker>/environ"
	}
	return "exec hooks are refused: bubblewrap is not available and " + EnvHookUser + " is not set (" + EnvSandbox + "=none runs them unconfined)"
}

// RefusedError is an exec hook that no confinement is configured for.
type RefusedError struct{ Hook string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s hook: %s", e.Hook, Sandbox{}.String())
}

// SandboxFromEnv picks the confinement: SLIPWAY_HOOK_SANDBOX=bwrap|user|none, or by default
// bubblewrap when it works here, else the SLIPWAY_HOOK_USER user, else none at all (refused).
// A mode that was asked for and does not work is an error naming the setting.
func SandboxFromEnv(ctx context.Context, getenv func(string) string) (Sandbox, error) {
	mode := getenv(EnvSandbox)
	bin := getenv(EnvBwrap)
	if bin == "" {
		bin = "bwrap"
	}
	switch mode {
	case SandboxNone:
		return Sandbox{Mode: SandboxNone}, nil
	case SandboxUser:
		return userSandbox(getenv(EnvHookUser))
	case SandboxBwrap, "":
		s, err := bwrapSandbox(ctx, bin)
		if err == nil || mode == SandboxBwrap {
			return s, err
		}
		if u := getenv(EnvHookUser); u != "" {
			return userSandbox(u)
		}
		return Sandbox{}, nil
	}
	return Sandbox{}, fmt.Errorf("%s: %q is not a confinement; use bwrap, user or none", EnvSandbox, mode)
}

// bwrapSandbox finds bubblewrap and checks that it can make its namespaces on this host.
func bwrapSandbox(ctx context.Context, bin string) (Sandbox, error) {
	p, err := exec.LookPath(bin)
	if err != nil {
		return Sandbox{}, fmt.Errorf("%s=bwrap: bubblewrap not found (%s; Debian: apt-get install bubblewrap): %w", EnvSandbox, EnvBwrap, err)
	}
	s := Sandbox{Mode: SandboxBwrap, Bwrap: p}
	dir, err := os.MkdirTemp("", "slipway-bwrap-probe-")
	if err != nil {
		return Sandbox{}, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, p, append(s.bwrapArgs(dir), "/bin/true")...)
	cmd.Env = []string{}
	if out, err := cmd.CombinedOutput(); err != nil {
		return Sandbox{}, fmt.Errorf("%s=bwrap: %s cannot make its namespaces here (unprivileged user namespaces off?): %v: %s", EnvSandbox, p, err, out)
	}
	return s, nil
}

func userSandbox(name string) (Sandbox, error) {
	if name == "" {
		return Sandbox{}, fmt.Errorf("%s=user: set %s to a dedicated unprivileged user", EnvSandbox, EnvHookUser)
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return Sandbox{}, fmt.Errorf("%s: %q is not a user here: %w", EnvHookUser, name, err)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return Sandbox{}, fmt.Errorf("%s: %q: %w", EnvHookUser, name, err)
	}
	if uid == 0 || uid == uint64(os.Getuid()) {
		return Sandbox{}, fmt.Errorf("%s: %q is root or the worker's own user; name a dedicated unprivileged user", EnvHookUser, name)
	}
	if os.Geteuid() != 0 {
		return Sandbox{}, fmt.Errorf("%s=%s: running hooks as another user needs a worker started as root", EnvHookUser, name)
	}
	return Sandbox{Mode: SandboxUser, UID: uint32(uid), GID: uint32(gid), User: u.Username}, nil
}

// bwrapArgs confine a command with dir as its writable /hook. The network is shared: a drain
// hook exists to tell something outside (a load balancer, a queue) to stop sending work.
func (s Sandbox) bwrapArgs(dir string) []string {
	args := []string{
		"--unshare-all", "--unshare-user", "--share-net",
		"--uid", strconv.Itoa(nobody), "--gid", strconv.Itoa(nobody),
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
	}
	args = append(args, bwrap.System()...)
	return append(args,
		"--bind", dir, sandboxDir, "--chdir", sandboxDir,
		"--setenv", "HOME", sandboxDir, "--setenv", "TMPDIR", "/tmp",
		"--")
}

// command runs the script (a path in dir) under the confinement; nil error means it may start.
// Every command gets its own process group: killing it kills bwrap, whose namespace init then
// takes every process in the namespace with it, setsid or not.
func (s Sandbox) command(ctx context.Context, hook, dir, script string, shebang bool) (*exec.Cmd, error) {
	var argv []string
	switch s.Mode {
	case SandboxBwrap:
		inner := path.Join(sandboxDir, path.Base(script))
		argv = append([]string{s.Bwrap}, s.bwrapArgs(dir)...)
		if shebang {
			argv = append(argv, inner)
		} else {
			argv = append(argv, "/bin/sh", inner)
		}
	case SandboxUser, SandboxNone:
		if shebang {
			argv = []string{script}
		} else {
			argv = []string{"/bin/sh", script}
		}
	default:
		return nil, &RefusedError{Hook: hook}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.Mode == SandboxUser {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: s.UID, Gid: s.GID, Groups: []uint32{}}
		if err := chownTree(dir, int(s.UID), int(s.GID)); err != nil {
			return nil, err
		}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	return cmd, nil
}

// chownTree gives the hook's user its scratch directory and script.
func chownTree(dir string, uid, gid int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Lchown(path.Join(dir, e.Name()), uid, gid); err != nil {
			return err
		}
	}
	return os.Chown(dir, uid, gid)
}
