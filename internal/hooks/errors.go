package hooks

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// maxQuoted bounds answers and URLs quoted in messages.
const maxQuoted = 80

// maxErrorOutput bounds the output tail a FailedError's message repeats.
const maxErrorOutput = 512

// InvalidSpecError is a hook spec, or an http hook's rendered URL, that cannot run. Field is
// the spec's key ("exec", "http", "deadline", "kind"), "" for the hook as a whole.
type InvalidSpecError struct {
	Hook   string
	Field  string
	Reason string
}

func (e *InvalidSpecError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s hook: %s", e.Hook, e.Reason)
	}
	return fmt.Sprintf("%s hook: %s: %s", e.Hook, e.Field, e.Reason)
}

// FailedError is a call that failed: a non-zero exit, a non-2xx status or a transport error.
type FailedError struct {
	Hook     string
	Kind     string
	Target   string // the script's path, or the URL without query or credentials
	Call     int    // 1-based
	ExitCode int    // exec: the exit code, -1 when killed by a signal
	Status   int    // http: the status code, 0 on a transport error
	Err      string // what went wrong when there is no exit code or status
	Output   string // the call's output (exec) or response body (http), tail-truncated
}

func (e *FailedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s hook (%s %s) ", e.Hook, e.Kind, e.Target)
	switch {
	case e.Status != 0:
		fmt.Fprintf(&b, "answered HTTP %d on call %d", e.Status, e.Call)
	case e.Err != "":
		fmt.Fprintf(&b, "failed on call %d: %s", e.Call, e.Err)
	default:
		fmt.Fprintf(&b, "exited %d on call %d", e.ExitCode, e.Call)
	}
	if out := strings.TrimSpace(e.Output); out != "" {
		b.WriteString(": " + tail(out, maxErrorOutput))
	}
	return b.String()
}

// DeadlineError is a hook that ran out of time: a call still running at the deadline (Wait
// is 0), or an answer asking for a wait that would pass it.
type DeadlineError struct {
	Hook     string
	Calls    int
	Deadline time.Time
	Wait     time.Duration // the wait asked for; 0 when a call was cut off
	Again    bool          // the answer asked to be called again after Wait
}

func (e *DeadlineError) Error() string {
	at := e.Deadline.UTC().Format(time.RFC3339)
	switch {
	case e.Wait == 0:
		return fmt.Sprintf("%s hook was still running call %d at its deadline %s and was killed", e.Hook, e.Calls, at)
	case e.Again:
		return fmt.Sprintf("%s hook asked to be called again after %s at call %d, past its deadline %s", e.Hook, e.Wait, e.Calls, at)
	default:
		return fmt.Sprintf("%s hook asked to wait %s after call %d, past its deadline %s", e.Hook, e.Wait, e.Calls, at)
	}
}

// AnswerError is an answer that is not empty, 0 or a whole number of seconds.
type AnswerError struct {
	Hook   string
	Call   int
	Answer string // truncated to 80 bytes
}

func (e *AnswerError) Error() string {
	return fmt.Sprintf("%s hook answered %q on call %d; want nothing or 0 (done), N>0 (wait N seconds, then done) or N<0 (wait -N seconds, then call again)",
		e.Hook, e.Answer, e.Call)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// tail keeps the last n bytes of s, starting on a rune boundary, marking the cut with "…".
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}
