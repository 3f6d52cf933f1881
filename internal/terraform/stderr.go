package terraform

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/slipway-dev/slipway/internal/credentials"
)

// maxStderrTail bounds CommandError.Stderr so errors stay small in workflow history.
const maxStderrTail = 4 << 10

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// String is the captured text with ANSI codes removed.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ansiRE.ReplaceAllString(strings.ToValidUTF8(string(t.b), ""), "")
}

// tail cuts s to its last n bytes, starting on a rune boundary.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// fail turns a terraform-exec error into this package's typed errors.
func (c *call) fail(err error) error {
	if err == nil {
		return nil
	}
	text := credentials.Redact(c.stderr.String(), c.secrets)
	if strings.Contains(text, "Error acquiring the state lock") {
		return c.lockedError(text)
	}
	if c.command != "init" && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !providersLinked(c.r.Dir(c.ws)) {
		return &ProvidersGoneError{Command: c.command, Workspace: c.ws}
	}
	cause := err
	var exitErr *exec.ExitError
	// terraform-exec appends all of stderr to its error; keep just the exit status, Stderr has the tail.
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && errors.As(err, &exitErr) {
		cause = exitErr
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return &KilledError{Command: c.command, Workspace: c.ws, Signal: ws.Signal().String(), Stderr: tail(text, maxStderrTail)}
		}
	}
	if msg := cause.Error(); credentials.Redact(msg, c.secrets) != msg {
		cause = errors.New(credentials.Redact(msg, c.secrets))
	}
	return &CommandError{Command: c.command, Workspace: c.ws, Stderr: tail(text, maxStderrTail), Err: cause}
}

func (c *call) lockedError(text string) *StateLockedError {
	info, detail := parseLockError(text)
	if c.r.Backend() == backendPG {
		// The pg backend prints the *requester's* lock info, not the holder's: ask PostgreSQL.
		info = LockInfo{Path: c.r.pgLockPath(c.ws)}
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		defer cancel()
		if held, ok, err := c.r.pgLock(ctx, c.ws); err == nil && ok {
			info = *held
		}
	}
	return &StateLockedError{Command: c.command, Workspace: c.ws, Lock: info, Detail: detail}
}

// parseLockError reads terraform's "Error acquiring the state lock" diagnostic.
func parseLockError(text string) (LockInfo, string) {
	var info LockInfo
	var detail string
	if i := strings.Index(text, "Error acquiring the state lock"); i >= 0 {
		text = text[i:]
	}
	inInfo := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(line, "│ \t"))
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case k == "Error message" && detail == "":
			detail = v
		case k == "Lock Info":
			inInfo = true
		case !inInfo:
		case k == "ID":
			info.ID = v
		case k == "Path":
			info.Path = v
		case k == "Operation":
			info.Operation = v
		case k == "Who":
			info.Who = v
		case k == "Created":
			info.Created = normalizeCreated(v)
		case k == "Info":
			inInfo = false // the last field of the block
		}
	}
	return info, detail
}

// normalizeCreated makes the error's Go time format match the lock file's RFC 3339.
func normalizeCreated(v string) string {
	if t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", v); err == nil {
		return t.UTC().Format(time.RFC3339Nano)
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return v
}
