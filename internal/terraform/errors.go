package terraform

import (
	"errors"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/errkind"
)

// errNotPrepared is the cause inside a *CommandError when a workspace has no working directory yet.
var errNotPrepared = errors.New("working directory missing: call Prepare and Init first")

// NotFoundError means no terraform binary could be found; its message says how to get one.
type NotFoundError struct {
	// Looked lists where FindBinary searched, in order.
	Looked []string
	// Reason is the last problem seen (missing file, not executable, ...).
	Reason string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("terraform binary not found (looked at %v: %s); install it from HashiCorp's apt repository "+
		"(https://apt.releases.hashicorp.com, package \"terraform\") or unzip a release from "+
		"https://releases.hashicorp.com/terraform/ onto PATH, or set %s to the binary's path",
		e.Looked, e.Reason, EnvBinary)
}

func (e *NotFoundError) Is(target error) bool { return target == errkind.NotFound }

// InvalidInputError reports bad caller input and names the offending field.
type InvalidInputError struct {
	Field  string
	Value  string
	Reason string
}

func (e *InvalidInputError) Error() string {
	return fmt.Sprintf("terraform: invalid %s %q: %s", e.Field, e.Value, e.Reason)
}

func (e *InvalidInputError) Is(target error) bool { return target == errkind.Invalid }

// StateLockedError means another operation holds the workspace's state lock.
type StateLockedError struct {
	Command   string
	Workspace Workspace
	Lock      LockInfo
	// Detail is terraform's own explanation ("resource temporarily unavailable", ...).
	Detail string
}

// CreationContention reports the pg backend's database-wide creation lock (advisory lock
// -1) being held while another workspace is created: brief contention, not a stuck lock.
func (e *StateLockedError) CreationContention() bool {
	return strings.Contains(e.Detail, "locked for workspace creation")
}

func (e *StateLockedError) Error() string {
	return fmt.Sprintf("terraform %s for workspace %s: state is locked (id=%q who=%q operation=%q created=%q path=%q): %s",
		e.Command, e.Workspace, e.Lock.ID, e.Lock.Who, e.Lock.Operation, e.Lock.Created, e.Lock.Path, e.Detail)
}

func (e *StateLockedError) Is(target error) bool { return target == errkind.Busy }

// HolderAliveError refuses to force a lock whose holder runs on this host and is alive:
// that terraform is not dead, so stop or cancel it instead.
type HolderAliveError struct {
	Workspace Workspace
	Lock      LockInfo
	Host      string
	PID       int
}

func (e *HolderAliveError) Error() string {
	return fmt.Sprintf("terraform force-unlock for workspace %s: lock %s is held by pid %d on this host (%s), which is still running; cancel or stop it instead of forcing its lock",
		e.Workspace, e.Lock.ID, e.PID, e.Host)
}

func (e *HolderAliveError) Is(target error) bool { return target == errkind.Busy }

// PlanMissingError means the plan file to apply is gone or differs from the planned one.
// It is retryable: the caller makes a new plan.
type PlanMissingError struct {
	Workspace Workspace
	File      string
	Reason    string
}

func (e *PlanMissingError) Error() string {
	return fmt.Sprintf("terraform apply for workspace %s: plan %s unusable: %s (make a new plan)", e.Workspace, e.File, e.Reason)
}

// StoreError is a failure of the plan store: unreachable (retry), or a row it cannot open
// (Err wraps the codec's error naming the key ID: retrying will not help).
type StoreError struct {
	Command   string
	Workspace Workspace
	Err       error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("terraform %s for workspace %s: plan store: %v", e.Command, e.Workspace, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

// ProvidersGoneError means a command failed because the providers its working directory linked
// from the plugin cache went while it ran: another init emptied the cache a killed init left
// (lockDir). It is not a failure of the change; the next attempt inits again, and goes on.
type ProvidersGoneError struct {
	Command   string
	Workspace Workspace
}

func (e *ProvidersGoneError) Error() string {
	return fmt.Sprintf("terraform %s for workspace %s: its providers were removed from the plugin cache while it ran (the cache a killed init left was emptied): it inits again on the next attempt",
		e.Command, e.Workspace)
}

// KilledError means terraform was killed by a signal slipway did not send (the OOM killer, an
// operator, a worker dying around it): not a verdict on the change, so the step runs again.
type KilledError struct {
	Command   string
	Workspace Workspace
	Signal    string
	Stderr    string
}

func (e *KilledError) Error() string {
	msg := fmt.Sprintf("terraform %s for workspace %s: ended by a signal slipway did not send (%s): it runs again on the next attempt",
		e.Command, e.Workspace, e.Signal)
	if e.Stderr != "" {
		msg += "\n" + e.Stderr
	}
	return msg
}

// StalePlanError means the state changed after the plan was made, so terraform refused it.
type StalePlanError struct {
	Workspace Workspace
	File      string
}

func (e *StalePlanError) Error() string {
	return fmt.Sprintf("terraform apply for workspace %s: saved plan %s is stale: the state changed after it was made (make a new plan)",
		e.Workspace, e.File)
}

// CommandError is any other failure of a terraform command.
type CommandError struct {
	Command   string
	Workspace Workspace
	// Stderr is the tail (at most 4 KiB, ANSI codes removed) of terraform's stderr.
	Stderr string
	Err    error
}

func (e *CommandError) Error() string {
	msg := fmt.Sprintf("terraform %s for workspace %s: %v", e.Command, e.Workspace, e.Err)
	if e.Stderr != "" {
		msg += "\n" + e.Stderr
	}
	return msg
}

// Unwrap exposes the cause, so errors.Is(err, context.Canceled) works after a cancel.
func (e *CommandError) Unwrap() error { return e.Err }
