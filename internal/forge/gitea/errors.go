package gitea

import (
	"fmt"
	"net/http"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

// AuthError is a token Gitea refused (401) or one without the rights a call needs (403).
// A retry cannot fix it.
type AuthError struct {
	Status  int
	Op      string
	Message string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("gitea: %s: HTTP %d: %s: check the token in %s (it needs read and write access to the repository)",
		e.Op, e.Status, e.Message, EnvToken)
}

func (e *AuthError) Is(target error) bool { return target == errkind.Auth }

// NotMergeableError means Gitea still calls the PR unmergeable after waiting for its
// background check without a conflict being found; it is retryable.
type NotMergeableError struct {
	Branch string
	Reason string
}

func (e *NotMergeableError) Error() string {
	return fmt.Sprintf("gitea: branch %s is not mergeable yet: %s", e.Branch, e.Reason)
}

// ClosedError means the PR was closed without merging; only a person can reopen it.
type ClosedError struct {
	Branch string
	ID     string
}

func (e *ClosedError) Error() string {
	return fmt.Sprintf("gitea: pull request #%s for branch %s is closed without merge", e.ID, e.Branch)
}

// APIError is any other failed call; it is retryable.
type APIError struct {
	Op     string
	Status int // 0 when no HTTP answer arrived
	Err    error
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("gitea: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("gitea: %s: HTTP %d: %v", e.Op, e.Status, e.Err)
}

func (e *APIError) Unwrap() error { return e.Err }

// classify turns an SDK failure into a typed error; what names a missing thing for 404.
func classify(op, what string, resp *sdk.Response, err error) error {
	if err == nil {
		return nil
	}
	if resp == nil || resp.Response == nil {
		return &APIError{Op: op, Err: err}
	}
	return classifyStatus(op, what, resp.StatusCode, resp.Header, err)
}

func classifyStatus(op, what string, status int, h http.Header, err error) error {
	switch {
	case status == http.StatusTooManyRequests || (status == http.StatusForbidden && h.Get("X-RateLimit-Remaining") == "0"):
		return fmt.Errorf("gitea: %s: %w", op, &forge.RateLimitError{RetryAfter: retryAfter.Wait(h), Message: err.Error()})
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &AuthError{Status: status, Op: op, Message: strings.TrimSpace(err.Error())}
	case status == http.StatusNotFound && what != "":
		return fmt.Errorf("gitea: %s: %w", op, &forge.NotFoundError{What: what})
	}
	return &APIError{Op: op, Status: status, Err: err}
}

// retryAfter reads Retry-After (seconds or an HTTP date) or X-RateLimit-Reset (unix seconds);
// an answer that says neither leaves the wait to the activity's retry policy.
var retryAfter = errkind.RetryAfter{Reset: "X-RateLimit-Reset"}
