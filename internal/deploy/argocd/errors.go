package argocd

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// Environment variables the errors point the operator at.
const (
	EnvURL   = "SLIPWAY_ARGOCD_URL"
	EnvToken = "SLIPWAY_ARGOCD_TOKEN"
)

// InvalidInputError is bad configuration or caller input; Field names it.
type InvalidInputError struct {
	Field  string
	Reason string
}

func (e *InvalidInputError) Error() string {
	return fmt.Sprintf("argocd: invalid %s: %s", e.Field, e.Reason)
}

func (e *InvalidInputError) Is(target error) bool { return target == errkind.Invalid }

// NotFoundError is a 404: the application does not exist. It says no errkind: the deployer
// handles it itself, and a step that meets one mid-sync retries it, where NotFound is final.
type NotFoundError struct {
	Op      string
	Message string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("argocd: %s: not found: %s", e.Op, e.Message)
}

// ConflictError is a 409: the object exists or changed underneath. It says no errkind: it is
// most often an operation still running, which a retry outlasts, where Conflict is final.
type ConflictError struct {
	Op      string
	Message string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("argocd: %s: conflict: %s", e.Op, e.Message)
}

// UnauthorizedError is a 401 or 403: the token (or login) was refused.
type UnauthorizedError struct {
	Op      string
	Status  int
	Message string
	// Login is set when the refused request was a username/password login.
	Login bool
}

func (e *UnauthorizedError) Error() string {
	hint := "check " + EnvToken + " (a valid, unexpired ArgoCD API token with rights on the project)"
	if e.Login {
		hint = "check the ArgoCD username and password"
	}
	return fmt.Sprintf("argocd: %s: unauthorized (HTTP %d): %s; %s", e.Op, e.Status, e.Message, hint)
}

func (e *UnauthorizedError) Is(target error) bool { return target == errkind.Auth }

// APIError is any other non-2xx answer, with ArgoCD's own message when it sent one.
type APIError struct {
	Op      string
	Status  int
	Code    int // gRPC code from the error body
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("argocd: %s: HTTP %d: %s", e.Op, e.Status, e.Message)
}

// SyncFailedError means ArgoCD tried the sync and it failed, or the app turned Degraded.
type SyncFailedError struct {
	App      string
	Revision string
	Phase    string
	Health   string
	// Message joins operationState.message, the conditions and failed resources' messages.
	Message   string
	Resources []contract.Resource
}

func (e *SyncFailedError) Error() string {
	return fmt.Sprintf("argocd: sync of application %s at %s failed (phase %s, health %s): %s",
		e.App, e.Revision, orUnknown(e.Phase), orUnknown(e.Health), e.Message)
}

// TimeoutError means the app was not Synced+Healthy at the revision by the deadline.
// The running operation was asked to terminate; TerminateErr says if that failed.
type TimeoutError struct {
	App          string
	Revision     string
	Deadline     time.Time
	Phase        string
	Sync         string
	Health       string
	Conditions   []string
	Resources    []contract.Resource
	TerminateErr error
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "argocd: application %s not Synced+Healthy at %s by the deadline %s (phase %s, sync %s, health %s)",
		e.App, e.Revision, e.Deadline.UTC().Format(time.RFC3339), orUnknown(e.Phase), orUnknown(e.Sync), orUnknown(e.Health))
	if len(e.Conditions) > 0 {
		fmt.Fprintf(&b, "; conditions: %s", strings.Join(e.Conditions, "; "))
	}
	if s := describeResources(e.Resources, false); s != "" {
		fmt.Fprintf(&b, "; resources: %s", s)
	}
	if e.TerminateErr != nil {
		fmt.Fprintf(&b, "; terminating the operation failed: %v", e.TerminateErr)
	}
	return b.String()
}

func (e *TimeoutError) Unwrap() error { return e.TerminateErr }

// IsNonRetryable says whether retrying the same call cannot help: refused credentials,
// a failed sync, a passed deadline, bad input, an object that is not the instance's, or
// another 4xx answer.
func IsNonRetryable(err error) bool {
	var (
		failed  *SyncFailedError
		timeout *TimeoutError
		api     *APIError
		foreign *deploy.NotOwnedError
	)
	switch {
	case errors.Is(err, errkind.Auth), errors.Is(err, errkind.Invalid), errors.As(err, &failed), errors.As(err, &timeout), errors.As(err, &foreign):
		return true
	case errors.As(err, &api):
		return api.Status >= 400 && api.Status < 500
	}
	return false
}

// operationInProgress matches argocd-server's refusal to start a sync while one runs
// (FailedPrecondition, HTTP 400, in v3.2; some proxies and versions answer 409).
func operationInProgress(err error) bool {
	var (
		conflict *ConflictError
		api      *APIError
	)
	const msg = "another operation is already in progress"
	switch {
	case errors.As(err, &conflict):
		return true
	case errors.As(err, &api):
		return strings.Contains(api.Message, msg)
	}
	return false
}

// describeResources lists "Kind ns/name: sync/health: message" for resources, only the
// unhappy ones when onlyBad is set.
func describeResources(rs []contract.Resource, onlyBad bool) string {
	var parts []string
	for _, r := range rs {
		if onlyBad && r.RsyncStatus != "Failed" && r.Health != HealthDegraded {
			continue
		}
		id := r.Name
		if r.Namespace != "" {
			id = r.Namespace + "/" + r.Name
		}
		s := fmt.Sprintf("%s %s: %s/%s", r.Kind, id, r.RsyncStatus, orUnknown(r.Health))
		if r.Message != "" {
			s += ": " + r.Message
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

// LeftOnClustersError is a removal that removed what it could and left the instance's app on
// these clusters (down, or failing): each is a leftover of its own, removed by a retry once it answers.
type LeftOnClustersError struct {
	Left []LeftOnCluster
}

// LeftOnCluster is the app slipway could not remove from one cluster, and why.
type LeftOnCluster struct {
	Cluster, Application, Namespace string
	Unreachable                     bool // the cluster did not answer, so nothing was tried there
	Err                             error
}

func (e *LeftOnClustersError) Error() string {
	parts := make([]string, 0, len(e.Left))
	for _, l := range e.Left {
		parts = append(parts, fmt.Sprintf("cluster %s: application %s left: %v", l.Cluster, l.Application, l.Err))
	}
	return "argocd: " + strings.Join(parts, "; ")
}

func (e *LeftOnClustersError) Unwrap() []error {
	out := make([]error, 0, len(e.Left))
	for _, l := range e.Left {
		out = append(out, l.Err)
	}
	return out
}
