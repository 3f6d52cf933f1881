package github

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

// TokenVar is the environment variable slipway reads the GitHub token from.
const TokenVar = "SLIPWAY_GITHUB_TOKEN"

// defaultRetryAfter is the wait for a rate limit that does not say how long (GitHub's advice: a minute).
const defaultRetryAfter = time.Minute

// retryAfter reads the wait of a 429: Retry-After, else the primary limit's reset time; at least a second.
var retryAfter = errkind.RetryAfter{Reset: "X-RateLimit-Reset", Default: defaultRetryAfter, Min: time.Second}

// AuthError is GitHub refusing the token (401) or its permissions (403). A retry cannot fix it.
type AuthError struct {
	Status  int
	Message string // GitHub's own words, e.g. "Bad credentials"
	Repo    string // owner/name
	// Credential names what authenticated the call (TokenVar when empty).
	Credential string
}

func (e *AuthError) Error() string {
	cred := e.Credential
	if cred == "" {
		cred = TokenVar
	}
	return fmt.Sprintf("github: %d %s: check %s (it needs contents:write and pull_requests:write on %s)",
		e.Status, e.Message, cred, e.Repo)
}

func (e *AuthError) Is(target error) bool { return target == errkind.Auth }

// NotMergeableError is a 405 from the merge endpoint that is not a content conflict (the base
// moved, mergeability not computed yet, branch protection). Retryable: it usually clears.
type NotMergeableError struct {
	Number  int
	Message string
}

func (e *NotMergeableError) Error() string {
	return fmt.Sprintf("github: pull request #%d cannot be merged now: %s", e.Number, e.Message)
}

// statusOf returns the HTTP status of a GitHub API error, or 0.
func statusOf(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// classify turns a go-github error from operation op into slipway's typed errors.
func (f *Forge) classify(op string, err error) error {
	var primary *gh.RateLimitError
	var secondary *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	if refused, ok := f.tokenRefused(err); ok {
		return fmt.Errorf("github: %s: %w", op, refused)
	}
	switch {
	case errors.As(err, &primary):
		wait := max(time.Until(primary.Rate.Reset.Time), time.Second)
		return fmt.Errorf("github: %s: %w", op, &forge.RateLimitError{RetryAfter: wait, Message: primary.Message})
	case errors.As(err, &secondary):
		wait := defaultRetryAfter
		if secondary.RetryAfter != nil {
			wait = *secondary.RetryAfter
		}
		return fmt.Errorf("github: %s: %w", op, &forge.RateLimitError{RetryAfter: wait, Message: secondary.Message})
	case errors.As(err, &er) && er.Response != nil:
		switch code := er.Response.StatusCode; {
		case code == http.StatusTooManyRequests:
			return fmt.Errorf("github: %s: %w", op, &forge.RateLimitError{RetryAfter: retryAfter.Wait(er.Response.Header), Message: er.Message})
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return fmt.Errorf("github: %s: %w", op, &AuthError{Status: code, Message: er.Message, Repo: f.fullName(), Credential: f.credential})
		case code == http.StatusNotFound:
			return fmt.Errorf("github: %s: %w", op, &forge.NotFoundError{What: "github repository " + f.fullName() +
				" (or the object asked for; a private repository also answers 404 when " + f.credential + " cannot see it)"})
		}
	}
	return fmt.Errorf("github: %s: %w", op, err)
}
