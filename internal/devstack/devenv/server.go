package devenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	readyDeadline = 60 * time.Second // a cold dev server is ready in a few seconds
	stopGrace     = 10 * time.Second // SIGINT lets the server flush SQLite before SIGKILL
	startAttempts = 3                // only for clashes on ports we picked ourselves
	logTailBytes  = 8 << 10
)

// Server is a running `temporal server start-dev` child process.
type Server struct {
	Address     string // frontend gRPC host:port
	UIURL       string // http://IP:PORT, or "" when headless
	Namespace   string
	GRPCPort    int
	UIPort      int // 0 when headless
	HTTPPort    int
	MetricsPort int // serves /metrics

	cmd      *exec.Cmd
	done     chan struct{}
	waitErr  error
	tail     *tailBuffer
	stopOnce sync.Once
	stopErr  error
}

// StartServer launches a dev server with the fast dynamic config on pinned
// loopback ports and returns once its frontend is healthy and the namespace
// answers. The server outlives ctx; call Stop.
func StartServer(ctx context.Context, opts ServerOptions) (*Server, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if o.DBFile != "" {
		if err := os.MkdirAll(filepath.Dir(o.DBFile), 0o755); err != nil {
			return nil, &OptionError{Field: "DBFile", Value: o.DBFile, Reason: err.Error()}
		}
	}
	for attempt := 1; ; attempt++ {
		ports, err := o.pickPorts()
		if err != nil {
			return nil, err
		}
		s, err := launch(ctx, o, ports)
		var exited *ExitedError
		if err != nil && attempt < startAttempts && o.autoPorts() &&
			errors.As(err, &exited) && portClash(exited.LogTail) {
			continue // another process took a port between FreePort and bind
		}
		return s, err
	}
}

func portClash(log string) bool {
	return strings.Contains(log, "address already in use") || strings.Contains(log, "can't set") ||
		strings.Contains(log, "can't use default UI port")
}

func launch(ctx context.Context, o ServerOptions, p serverPorts) (*Server, error) {
	s := &Server{
		Address:     net.JoinHostPort(o.IP, strconv.Itoa(p.GRPC)),
		Namespace:   o.Namespace,
		GRPCPort:    p.GRPC,
		UIPort:      p.UI,
		HTTPPort:    p.HTTP,
		MetricsPort: p.Metrics,
		done:        make(chan struct{}),
		tail:        newTailBuffer(logTailBytes),
	}
	if !o.Headless {
		s.UIURL = "http://" + net.JoinHostPort(o.IP, strconv.Itoa(p.UI))
	}
	out := io.Writer(s.tail)
	var logFile *os.File
	if o.LogFile != "" {
		f, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, &OptionError{Field: "LogFile", Value: o.LogFile, Reason: err.Error()}
		}
		logFile = f
		out = io.MultiWriter(f, s.tail)
	}
	args := o.args(p)
	fmt.Fprintf(out, "== slipway devenv %s: %s %s\n", time.Now().Format(time.RFC3339), o.Binary, strings.Join(args, " "))

	// Not CommandContext: the server must outlive the context that started it.
	s.cmd = exec.Command(o.Binary, args...)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.SysProcAttr = sysProcAttr()
	s.cmd.WaitDelay = time.Second // don't hang on a pipe a stray grandchild still holds
	if err := s.cmd.Start(); err != nil {
		if logFile != nil {
			_ = logFile.Close()
		}
		return nil, fmt.Errorf("devenv: start %s: %w", o.Binary, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		if logFile != nil {
			_ = logFile.Close()
		}
		close(s.done)
	}()

	if err := s.waitReady(ctx, o.Binary); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls until the frontend is healthy and the namespace answers, the
// process exits, ctx ends or readyDeadline passes.
func (s *Server) waitReady(ctx context.Context, binary string) error {
	readyCtx, cancel := context.WithTimeout(ctx, readyDeadline)
	defer cancel()
	// A probe in flight must not delay noticing that the process already died.
	probeCtx, cancelProbe := context.WithCancel(readyCtx)
	defer cancelProbe()
	go func() {
		select {
		case <-s.done:
			cancelProbe()
		case <-probeCtx.Done():
		}
	}()
	for {
		if Reachable(probeCtx, s.Address, 2*time.Second) &&
			namespaceReady(probeCtx, s.Address, s.Namespace, 2*time.Second) {
			return nil
		}
		select {
		case <-s.done:
			return &ExitedError{Binary: binary, Err: s.exitErr(), LogTail: s.tail.String()}
		case <-readyCtx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("devenv: waiting for temporal dev server at %s: %w", s.Address, ctx.Err())
			}
			return &StartTimeoutError{Address: s.Address, Waited: readyDeadline.String(), LogTail: s.tail.String()}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Server) exitErr() error {
	if s.waitErr == nil {
		return errors.New("exit status 0")
	}
	return s.waitErr
}

// PID is the server process id (also its process group id).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Done is closed once the server process has exited, for whatever reason.
func (s *Server) Done() <-chan struct{} { return s.done }

// LogTail returns the last few KB the server wrote, for error messages.
func (s *Server) LogTail() string { return s.tail.String() }

// Ports lists every port pinned for this server (gRPC, HTTP, metrics, and UI
// unless headless).
func (s *Server) Ports() []int {
	ports := []int{s.GRPCPort, s.HTTPPort, s.MetricsPort}
	if s.UIPort != 0 {
		ports = append(ports, s.UIPort)
	}
	return ports
}

// Stop sends SIGINT to the server's process group, waits up to 10s, then sends
// SIGKILL. It is safe to call more than once and after the server died.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	select {
	case <-s.done:
		return nil // already gone; its pgid may belong to someone else by now
	default:
	}
	pgid := s.cmd.Process.Pid // Setpgid made the server its own group leader
	_ = syscall.Kill(-pgid, syscall.SIGINT)
	select {
	case <-s.done:
		return nil
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.done
		return &StopTimeoutError{Address: s.Address, Grace: stopGrace}
	}
}
