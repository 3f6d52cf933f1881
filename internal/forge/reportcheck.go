package forge

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// The checks below are the same for every Reporter: they reject what no forge would show
// well. What only one forge needs (GitHub's 140-character description, a numeric mr.ID on
// the remote forges) stays in that backend.

// markerPrefix starts every comment marker; a body must not carry one of its own.
const markerPrefix = "<!-- slipway:"

var commitSHA = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// CheckStatus validates the input of Reporter.SetStatus and returns sha in lower case,
// the form every backend posts.
func CheckStatus(sha string, s CommitStatus) (string, error) {
	lower := strings.ToLower(sha)
	switch {
	case !commitSHA.MatchString(lower):
		return "", &InvalidError{Field: "sha", Value: sha, Problem: "must be a full commit SHA (40 or 64 hex digits)"}
	case strings.TrimSpace(s.Context) == "":
		return "", &InvalidError{Field: "context", Problem: "must not be empty"}
	case strings.IndexFunc(s.Context, unicode.IsControl) >= 0:
		return "", &InvalidError{Field: "context", Value: s.Context, Problem: "must be one line without control characters"}
	}
	switch s.State {
	case StatusPending, StatusSuccess, StatusFailure, StatusError:
	default:
		return "", &InvalidError{Field: "state", Value: string(s.State), Problem: "must be pending, success, failure or error"}
	}
	if s.TargetURL != "" {
		if u, err := url.Parse(s.TargetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", &InvalidError{Field: "targetURL", Value: s.TargetURL, Problem: "must be an absolute http(s) URL"}
		}
	}
	return lower, nil
}

// CheckComment validates the input of Reporter.Comment; the key goes into an HTML comment,
// hence its rules. It requires a non-empty mr.ID only: what an ID looks like is the backend's.
func CheckComment(mr MergeRequest, key, body string) error {
	switch {
	case mr.ID == "":
		return &InvalidError{Field: "mr.ID", Problem: "must not be empty"}
	case key == "":
		return &InvalidError{Field: "key", Problem: "must not be empty"}
	case strings.ContainsFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '>' }) ||
		strings.Contains(key, "--"):
		return &InvalidError{Field: "key", Value: key, Problem: "must be one word without whitespace, > or --"}
	case strings.TrimSpace(body) == "":
		return &InvalidError{Field: "body", Problem: "must not be empty"}
	case strings.ContainsRune(body, 0):
		return &InvalidError{Field: "body", Problem: "must not contain NUL bytes"}
	case strings.Contains(body, markerPrefix):
		// Another key's marker in the body would make that key's comment look posted.
		return &InvalidError{Field: "body", Problem: "must not contain a <!-- slipway:KEY --> marker"}
	}
	return nil
}

// CommentMarker is the hidden line that identifies the comment of key: a comment carrying
// it means key's comment was posted, which makes Reporter.Comment idempotent per key.
func CommentMarker(key string) string { return markerPrefix + key + " -->" }

// WithMarker ends body with key's marker, after a blank line.
func WithMarker(body, key string) string {
	return strings.TrimRight(body, "\r\n") + "\n\n" + CommentMarker(key)
}
