// Package cli is the `slipway` command line (cobra). Exit codes: 0 success,
// 1 a failed operation (or an error reaching the system), 2 bad input or usage,
// 3 refused: not signed in, or denied by policy.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
	// ExitRefused: not signed in (no, expired or foreign token; no key), or denied by policy.
	ExitRefused = 3
)

// Streams are where a command reads and writes.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Main runs the CLI with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, s Streams) int {
	root := NewRoot(s)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.msg != "" {
			fmt.Fprintln(s.Err, "error:", ex.msg)
		}
		return ex.code
	}
	fmt.Fprintln(s.Err, "error:", err)
	return exitCode(err)
}

// exitCodes is the exit code of each kind of error the client (or the API server) returns: its
// verdict on the request. Any other error, a backend's kind included, is a failure.
var exitCodes = map[errkind.Kind]int{
	errkind.Auth:       ExitRefused,
	errkind.Invalid:    ExitUsage,
	errkind.NotFound:   ExitUsage,
	errkind.NotAllowed: ExitUsage,
	errkind.Busy:       ExitUsage,
}

// exitCode is the exit code of an error no command gave one.
func exitCode(err error) int {
	if code, ok := exitCodes[apiserver.KindOf(err)]; ok {
		return code
	}
	// cobra reports an unknown subcommand as a plain error; it is still usage.
	if strings.HasPrefix(err.Error(), "unknown command") {
		return ExitUsage
	}
	return ExitFailed
}

// Run is the process entry point used by starter/main.go.
func Run() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, endTrace, err := traceCommand(ctx, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(ExitUsage)
	}
	code := Main(ctx, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	endTrace(code)
	stop()
	os.Exit(code)
}

// exitError carries an exit code; msg "" means the command already explained.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, msg: fmt.Sprintf(format, args...)}
}

// failed is an operation that ran and failed; the command printed why.
var failed = &exitError{code: ExitFailed}
