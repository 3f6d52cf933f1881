package temporalcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

const (
	// readyDeadline is a safety net: a node answers in about half a second.
	readyDeadline = 90 * time.Second
	// startAttempts retries only clashes on ports picked here.
	startAttempts = 3
)

// Node is one temporal-server process running frontend, history, matching and worker.
type Node struct {
	opts NodeOptions // resolved, ports picked
	bins Binaries
	dir  string

	op      sync.Mutex // one Stop, Kill or Restart at a time
	p       atomic.Pointer[proc.Process]
	serving atomic.Bool // answered a health check and was not stopped since
}

// StartNode writes the node's config and starts it, and returns once its frontend answers
// a health check. The node outlives ctx; call Stop (the kernel kills it if this process dies).
func StartNode(ctx context.Context, o NodeOptions) (*Node, error) {
	o, bins, err := o.resolve()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, &OptionError{Field: "NodeOptions.Dir", Value: o.Dir, Reason: err.Error()}
	}
	if err := os.MkdirAll(filepath.Join(dir, configDirName), 0o755); err != nil {
		return nil, &OptionError{Field: "NodeOptions.Dir", Value: o.Dir, Reason: err.Error()}
	}
	o.Dir = dir
	auto := o.Ports.auto()
	for attempt := 1; ; attempt++ {
		n := &Node{opts: o, bins: bins, dir: dir}
		if n.opts.Ports, err = o.Ports.pick(); err != nil {
			return nil, err
		}
		err = n.start(ctx)
		var exited *ExitedError
		if err != nil && auto && attempt < startAttempts && errors.As(err, &exited) && portClash(exited.LogTail) {
			continue // another process took a port between the probe and the bind
		}
		if err != nil {
			return nil, err
		}
		return n, nil
	}
}

func portClash(log string) bool {
	return strings.Contains(log, "address already in use")
}

// start writes the config files, runs the server and waits until its frontend answers.
func (n *Node) start(ctx context.Context) error {
	cfg, err := renderConfig(n.opts, filepath.Join(n.dir, dynamicFileName))
	if err != nil {
		return err
	}
	dyn, err := renderDynamicConfig(n.opts.DynamicConfig)
	if err != nil {
		return err
	}
	// 0600: the config holds the database password.
	if err := os.WriteFile(filepath.Join(n.dir, configDirName, configEnv+".yaml"), cfg, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.dir, dynamicFileName), dyn, 0o644); err != nil {
		return err
	}
	args := []string{"--root", n.dir, "--config", configDirName, "--env", configEnv}
	if n.opts.Authorization == nil {
		args = append(args, "--allow-no-auth", "start")
	} else {
		args = append(args, "start")
		for _, svc := range services {
			args = append(args, "--service", svc)
		}
	}
	if err := n.logLine("%s %s", n.bins.Server, strings.Join(args, " ")); err != nil {
		return err
	}
	// Not CommandContext: the node must outlive the context that started it.
	cmd := exec.Command(n.bins.Server, args...)
	cmd.Dir = n.dir // relative paths in the config resolve against the node's directory
	p, err := proc.Start(n.opts.Name, cmd, n.LogPath())
	if err != nil {
		return fmt.Errorf("temporalcluster: node %s: %w", n.opts.Name, err)
	}
	n.p.Store(p)
	if err := n.waitReady(ctx, p); err != nil {
		_ = p.Kill()
		return err
	}
	n.serving.Store(true)
	return nil
}

// logLine appends a marker to the node's log, so restarts are easy to find in it.
func (n *Node) logLine(format string, args ...any) error {
	f, err := os.OpenFile(n.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "== slipway temporalcluster %s: "+format+"\n", append([]any{time.Now().Format(time.RFC3339)}, args...)...)
	return err
}

// waitReady polls the frontend until it answers, the process exits, ctx ends or the deadline passes.
func (n *Node) waitReady(ctx context.Context, p *proc.Process) error {
	readyCtx, cancel := context.WithTimeout(ctx, readyDeadline)
	defer cancel()
	for {
		if Reachable(readyCtx, n.Address(), 2*time.Second) {
			return nil
		}
		if err := p.Exited(); err != nil {
			return &ExitedError{Node: n.opts.Name, Err: err, LogTail: n.LogTail()}
		}
		select {
		case <-readyCtx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("temporalcluster: waiting for node %s at %s: %w", n.opts.Name, n.Address(), ctx.Err())
			}
			return &StartTimeoutError{Node: n.opts.Name, Address: n.Address(), Waited: readyDeadline.String(), LogTail: n.LogTail()}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// services are what a node with Authorization runs: the default four and the internal frontend.
var services = []string{"frontend", "internal-frontend", "history", "matching", "worker"}

// InternalAddress is the node's internal frontend (only with Authorization, else ""): it
// maps every caller to system admin, so only the server's own services and the cluster's
// setup use it.
func (n *Node) InternalAddress() string {
	if n.opts.Authorization == nil {
		return ""
	}
	return net.JoinHostPort(loopback, strconv.Itoa(n.opts.Ports.InternalFrontend))
}

// Name names the node in logs and errors.
func (n *Node) Name() string { return n.opts.Name }

// Address is the node's own frontend gRPC host:port.
func (n *Node) Address() string {
	return net.JoinHostPort(loopback, strconv.Itoa(n.opts.Ports.Frontend))
}

// Ports are every port the node listens on; they stay the same across restarts.
func (n *Node) Ports() Ports { return n.opts.Ports }

// Dir holds the node's config, dynamic config and log.
func (n *Node) Dir() string { return n.dir }

// LogPath is the node's log file; every start appends to it.
func (n *Node) LogPath() string { return filepath.Join(n.dir, logFileName) }

// LogTail is the end of the node's log, for error messages.
func (n *Node) LogTail() string { return proc.LogTail(n.LogPath()) }

// Pid is the node's process ID (also its process group's), 0 before it started.
func (n *Node) Pid() int {
	if p := n.p.Load(); p != nil {
		return p.Pid()
	}
	return 0
}

// Running reports whether the node's process is alive.
func (n *Node) Running() bool {
	p := n.p.Load()
	return p != nil && p.Exited() == nil
}

// Serving reports whether the node answered its health check and has not been stopped or
// killed since (nor died by itself).
func (n *Node) Serving() bool { return n.serving.Load() && n.Running() }

// Stop asks the node to shut down (SIGTERM), SIGKILLs it after a grace period, and waits.
func (n *Node) Stop() error {
	n.op.Lock()
	defer n.op.Unlock()
	return n.stop()
}

func (n *Node) stop() error {
	n.serving.Store(false)
	p := n.p.Load()
	if p == nil || p.Exited() != nil {
		return nil
	}
	if err := p.Stop(); err != nil {
		return fmt.Errorf("temporalcluster: stop node %s: %w", n.opts.Name, err)
	}
	return nil
}

// Kill SIGKILLs the node's whole process group at once, as a crash would, and waits.
func (n *Node) Kill() error {
	n.op.Lock()
	defer n.op.Unlock()
	n.serving.Store(false)
	p := n.p.Load()
	if p == nil {
		return nil
	}
	if err := p.Kill(); err != nil {
		return fmt.Errorf("temporalcluster: kill node %s: %w", n.opts.Name, err)
	}
	_ = n.logLine("killed (SIGKILL to the process group)")
	return nil
}

// Restart stops the node if it runs, starts it again on the same ports and config, and
// returns once its frontend answers: it rejoins the cluster's membership ring.
func (n *Node) Restart(ctx context.Context) error {
	n.op.Lock()
	defer n.op.Unlock()
	if err := n.stop(); err != nil {
		return err
	}
	return n.start(ctx)
}
