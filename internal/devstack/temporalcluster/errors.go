package temporalcluster

import (
	"fmt"
	"strings"
)

// MissingBinaryError says a file of the server release is missing and how to build it.
type MissingBinaryError struct {
	Tool  string // temporal-server, temporal-sql-tool or schema
	Path  string
	Where string // which rule chose the directory
}

func (e *MissingBinaryError) Error() string {
	return fmt.Sprintf("temporalcluster: %s not found at %s (from %s): run `scripts/tools.sh temporal-server` "+
		"(builds %s %s and its sql tool from the Go module proxy, about 3 minutes once), or set %s "+
		"to a directory holding temporal-server, temporal-sql-tool and schema/",
		e.Tool, e.Path, e.Where, serverModule, ServerVersion, EnvServerDir)
}

// OptionError names the option field that holds a bad value; nothing was started.
type OptionError struct {
	Field  string // e.g. "NodeOptions.Ports.HistoryMembership"
	Value  any
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("temporalcluster: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// SchemaError says creating a database or applying its schema failed.
type SchemaError struct {
	Database string
	Step     string // e.g. "create database", "setup-schema", "update-schema"
	Err      error
	Output   string // the tool's output, when a tool ran
}

func (e *SchemaError) Error() string {
	msg := fmt.Sprintf("temporalcluster: %s of database %s: %v", e.Step, e.Database, e.Err)
	if out := strings.TrimSpace(e.Output); out != "" {
		msg += "\n--- output ---\n" + out
	}
	return msg
}

func (e *SchemaError) Unwrap() error { return e.Err }

// ExitedError says a node's process ended before its frontend answered.
type ExitedError struct {
	Node    string
	Err     error
	LogTail string
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("temporalcluster: node %s exited before it was ready: %v\n--- node log tail ---\n%s",
		e.Node, e.Err, e.LogTail)
}

func (e *ExitedError) Unwrap() error { return e.Err }

// StartTimeoutError says a node's frontend did not answer a health check in time.
type StartTimeoutError struct {
	Node    string
	Address string
	Waited  string
	LogTail string
}

func (e *StartTimeoutError) Error() string {
	return fmt.Sprintf("temporalcluster: node %s (frontend %s) not healthy after %s\n--- node log tail ---\n%s",
		e.Node, e.Address, e.Waited, e.LogTail)
}

// NamespaceError says the namespace or its search attributes could not be set up.
type NamespaceError struct {
	Namespace string
	Step      string
	Err       error
}

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("temporalcluster: %s of namespace %s: %v", e.Step, e.Namespace, e.Err)
}

func (e *NamespaceError) Unwrap() error { return e.Err }
