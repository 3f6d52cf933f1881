package hooks

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// answer is what a hook's answer asks for: done at once (zero), a wait and done (a static
// drain), or a wait and another call (a dynamic drain).
type answer struct {
	wait  time.Duration
	again bool
}

// parseAnswer reads a trimmed answer; ok is false when it is not empty, 0 or an integer.
func parseAnswer(s string) (a answer, ok bool) {
	if s == "" {
		return answer{}, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return answer{}, false
	}
	a.again = n < 0
	if a.again {
		n = -n
	}
	// Clamp what time.Duration cannot hold (and -MinInt64): such a wait passes any deadline.
	if maxSeconds := int64(math.MaxInt64 / time.Second); n > maxSeconds || n < 0 {
		n = maxSeconds
	}
	a.wait = time.Duration(n) * time.Second
	return a, true
}

// maxLine bounds the line an exec hook's answer is read from; a longer one is garbage anyway.
const maxLine = 1024

// lastLine is an io.Writer that keeps the last non-empty line written to it, trimmed: an
// exec hook's answer, read without keeping all of its stdout.
type lastLine struct {
	cur, last []byte
}

func (l *lastLine) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.add(rest)
			break
		}
		l.add(rest[:i])
		if len(bytes.TrimSpace(l.cur)) > 0 {
			l.last = append(l.last[:0], l.cur...)
		}
		l.cur = l.cur[:0]
		rest = rest[i+1:]
	}
	return len(p), nil
}

// add appends to the current line, keeping its first maxLine bytes.
func (l *lastLine) add(b []byte) {
	if room := maxLine - len(l.cur); room > 0 {
		l.cur = append(l.cur, b[:min(room, len(b))]...)
	}
}

// String is the answer: an unterminated last line counts when it is not blank.
func (l *lastLine) String() string {
	if s := bytes.TrimSpace(l.cur); len(s) > 0 {
		return string(s)
	}
	return string(bytes.TrimSpace(l.last))
}
