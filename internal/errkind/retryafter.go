package errkind

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads how long a rate-limited HTTP answer asks us to wait: its Retry-After header
// (seconds or an HTTP date), else the Reset header (the limit's reset as unix seconds), else
// Default. Each forge passes its own Reset header and Default.
type RetryAfter struct {
	Reset   string        // e.g. "X-RateLimit-Reset"; "" reads none
	Default time.Duration // when the answer does not say
	Min     time.Duration // floor of a wait the answer gives (a reset already passed, "0")
	Max     time.Duration // cap of a wait the answer gives; 0 is none
}

// Wait is the wait h asks for, from now.
func (r RetryAfter) Wait(h http.Header) time.Duration { return r.waitAt(h, time.Now()) }

func (r RetryAfter) waitAt(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return r.bound(time.Duration(s) * time.Second)
	}
	if at, err := http.ParseTime(v); err == nil {
		return r.bound(at.Sub(now))
	}
	if r.Reset != "" {
		if unix, err := strconv.ParseInt(strings.TrimSpace(h.Get(r.Reset)), 10, 64); err == nil {
			return r.bound(time.Unix(unix, 0).Sub(now))
		}
	}
	return r.Default
}

func (r RetryAfter) bound(d time.Duration) time.Duration {
	d = max(d, r.Min, 0)
	if r.Max > 0 {
		d = min(d, r.Max)
	}
	return d
}
