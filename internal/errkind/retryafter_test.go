package errkind

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The three forges' rules, as they pass them.
var (
	github = RetryAfter{Reset: "X-RateLimit-Reset", Default: time.Minute, Min: time.Second}
	gitlab = RetryAfter{Reset: "RateLimit-Reset", Default: time.Minute}
	gitea  = RetryAfter{Reset: "X-RateLimit-Reset"}
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestRetryAfterReadsSecondsDatesAndResetsFromNow(t *testing.T) {
	now := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	inAMinute := now.Add(90 * time.Second)
	cases := map[string]struct {
		rule RetryAfter
		h    http.Header
		want time.Duration
	}{
		"seconds":                        {gitlab, header("Retry-After", "42"), 42 * time.Second},
		"seconds with spaces":            {gitea, header("Retry-After", " 7 "), 7 * time.Second},
		"zero seconds":                   {gitlab, header("Retry-After", "0"), 0},
		"zero seconds under a floor":     {github, header("Retry-After", "0"), time.Second},
		"HTTP date":                      {gitea, header("Retry-After", inAMinute.Format(http.TimeFormat)), 90 * time.Second},
		"HTTP date passed":               {gitlab, header("Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)), 0},
		"negative seconds fall to reset": {gitea, header("Retry-After", "-5", "X-RateLimit-Reset", "1795572030"), 30 * time.Second},
		"reset":                          {github, header("X-RateLimit-Reset", "1795572060"), time.Minute},
		"reset passed":                   {gitlab, header("RateLimit-Reset", "0"), 0},
		"reset passed under a floor":     {github, header("X-RateLimit-Reset", "0"), time.Second},
		"another forge's reset header":   {gitlab, header("X-RateLimit-Reset", "1795572060"), time.Minute},
		"garbage":                        {github, header("Retry-After", "soon"), time.Minute},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, tc.rule.waitAt(tc.h, now), name)
	}
}

func TestRetryAfterDefaultsAreEachForgesOwn(t *testing.T) {
	assert.Equal(t, time.Minute, github.Wait(http.Header{}), "GitHub's advice: a minute")
	assert.Equal(t, time.Minute, gitlab.Wait(http.Header{}), "GitLab's windows are per minute")
	assert.Equal(t, time.Duration(0), gitea.Wait(http.Header{}), "Gitea leaves it to the retry policy")
}

func TestRetryAfterCapsTheWait(t *testing.T) {
	capped := RetryAfter{Default: time.Minute, Max: 5 * time.Minute}
	assert.Equal(t, 5*time.Minute, capped.Wait(header("Retry-After", "3600")))
	assert.Equal(t, 30*time.Second, capped.Wait(header("Retry-After", "30")))
	assert.Equal(t, time.Minute, capped.Wait(http.Header{}), "the default is the caller's, not capped")
}
