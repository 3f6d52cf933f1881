package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

// AuthError is GitLab refusing the token (401/403). A retry cannot fix it; it unwraps to a
// *forge.InvalidError naming SLIPWAY_GITLAB_TOKEN.
type AuthError struct {
	Op      string
	Status  int
	Message string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("gitlab: %s: %d %s: check %s (a token with api scope and Developer access to the project)",
		e.Op, e.Status, e.Message, TokenVar)
}

func (e *AuthError) Is(target error) bool { return target == errkind.Auth }

func (e *AuthError) Unwrap() error {
	return &forge.InvalidError{Field: TokenVar, Problem: fmt.Sprintf("rejected by GitLab (%d %s)", e.Status, e.Message)}
}

// APIError is any other failed API call; it is retryable.
type APIError struct {
	Op      string
	Status  int // 0 when no response arrived
	Message string
	Err     error
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("gitlab: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("gitlab: %s: %d %s", e.Op, e.Status, e.Message)
}

func (e *APIError) Unwrap() error { return e.Err }

// MergePendingError means GitLab accepted the merge but has not finished it; retry.
type MergePendingError struct {
	Branch string
	State  string
}

func (e *MergePendingError) Error() string {
	return fmt.Sprintf("gitlab: merge of %s accepted but the merge request is still %s", e.Branch, e.State)
}

// status returns the HTTP status of a failed call (0 when none).
func status(resp *gl.Response) int {
	if resp == nil || resp.Response == nil {
		return 0
	}
	return resp.StatusCode
}

// translate turns a client-go error into slipway's typed errors; what names the thing a 404 lacks.
func (f *Forge) translate(op, what string, resp *gl.Response, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("gitlab: %s: %w", op, err)
	}
	msg := http.StatusText(status(resp))
	var er *gl.ErrorResponse
	if errors.As(err, &er) {
		msg = errorMessage(er, msg)
	}
	switch code := status(resp); {
	case code == http.StatusTooManyRequests,
		code == http.StatusForbidden && resp.Header.Get("RateLimit-Remaining") == "0":
		return fmt.Errorf("gitlab: %s: %w", op, &forge.RateLimitError{RetryAfter: retryAfter.Wait(resp.Header), Message: msg})
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return &AuthError{Op: op, Status: code, Message: msg}
	case code == http.StatusNotFound:
		return &forge.NotFoundError{What: what + " in GitLab project " + f.project}
	default:
		return &APIError{Op: op, Status: code, Message: msg, Err: err}
	}
}

// retryAfter reads how long GitLab asks us to wait: Retry-After, else RateLimit-Reset; its
// rate-limit windows are per minute.
var retryAfter = errkind.RetryAfter{Reset: "RateLimit-Reset", Default: time.Minute}

// errorMessage prefers GitLab's own {"message": "..."} text over client-go's rendering of it.
func errorMessage(er *gl.ErrorResponse, fallback string) string {
	var body struct {
		Message any `json:"message"`
	}
	if json.Unmarshal(er.Body, &body) == nil {
		if s, ok := body.Message.(string); ok && s != "" {
			return s
		}
	}
	if er.Message != "" {
		return er.Message
	}
	return fallback
}
