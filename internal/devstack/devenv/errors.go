package devenv

import (
	"fmt"
	"strings"
	"time"
)

// NotFoundError says the temporal CLI is nowhere to be found and how to get it.
type NotFoundError struct {
	Searched []string // every place that was looked at, in order
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("temporal CLI not found (looked at: %s): run `make temporal` "+
		"(builds github.com/temporalio/cli %s from the Go module proxy, ~9 minutes once), "+
		"or set SLIPWAY_TEMPORAL to a temporal binary",
		strings.Join(e.Searched, ", "), TemporalVersion)
}

// OptionError names the ServerOptions field that holds a bad value.
type OptionError struct {
	Field  string
	Value  any
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("devenv: ServerOptions.%s = %v: %s", e.Field, e.Value, e.Reason)
}

// ExitedError says the dev server process ended before it became healthy.
type ExitedError struct {
	Binary  string
	Err     error  // what Wait returned
	LogTail string // the last lines the server wrote
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("temporal dev server (%s) exited before it was ready: %v\n--- server log tail ---\n%s",
		e.Binary, e.Err, e.LogTail)
}

func (e *ExitedError) Unwrap() error { return e.Err }

// StartTimeoutError says the frontend never answered a health check in time.
type StartTimeoutError struct {
	Address string
	Waited  string
	LogTail string
}

func (e *StartTimeoutError) Error() string {
	return fmt.Sprintf("temporal dev server at %s not healthy after %s\n--- server log tail ---\n%s",
		e.Address, e.Waited, e.LogTail)
}

// StopTimeoutError says the server ignored SIGINT and had to be killed.
type StopTimeoutError struct {
	Address string
	Grace   time.Duration
}

func (e *StopTimeoutError) Error() string {
	return fmt.Sprintf("temporal dev server at %s did not stop within %s of SIGINT; killed it", e.Address, e.Grace)
}
