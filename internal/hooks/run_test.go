package hooks

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{limit: 8}
	_, _ = b.Write([]byte("abc"))
	assert.Equal(t, "abc", b.String())
	_, _ = b.Write([]byte("defghij"))
	assert.Equal(t, "…(2 bytes cut)cdefghij", b.String())

	// A cut inside a rune moves to the next rune, so the output stays valid UTF-8.
	u := &tailBuffer{limit: 4}
	_, _ = u.Write([]byte("aé€")) // 1 + 2 + 3 bytes
	assert.Equal(t, "…(3 bytes cut)€", u.String())
}

func TestTailBufferAppend(t *testing.T) {
	total := &tailBuffer{limit: 10}
	_, _ = total.Write([]byte("12345"))
	call := &tailBuffer{limit: 10}
	_, _ = call.Write([]byte(strings.Repeat("x", 15) + "END"))
	total.appendBuffer(call)
	assert.Equal(t, "…(13 bytes cut)xxxxxxxEND", total.String())
}

func TestErrorMessages(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		err  error
		want string
	}{
		{&FailedError{Hook: Drain, Kind: KindExec, Target: "hooks/drain.sh", Call: 1, ExitCode: 3}, "drain hook (exec hooks/drain.sh) exited 3 on call 1"},
		{&FailedError{Hook: Drain, Kind: KindExec, Target: "hooks/drain.sh", Call: 2, ExitCode: -1, Err: "signal: killed"}, "drain hook (exec hooks/drain.sh) failed on call 2: signal: killed"},
		{&FailedError{Hook: PostDeploy, Kind: KindHTTP, Target: "http://h/r", Call: 1, Status: 500, Output: strings.Repeat("y", 600)},
			"post-deploy hook (http http://h/r) answered HTTP 500 on call 1: …" + strings.Repeat("y", 512)},
		{&DeadlineError{Hook: Drain, Calls: 4, Deadline: at, Wait: 5 * time.Second, Again: true}, "drain hook asked to be called again after 5s at call 4, past its deadline 2026-03-01T12:00:00Z"},
		{&DeadlineError{Hook: Drain, Calls: 1, Deadline: at, Wait: time.Minute}, "drain hook asked to wait 1m0s after call 1, past its deadline 2026-03-01T12:00:00Z"},
		{&DeadlineError{Hook: Drain, Calls: 2, Deadline: at}, "drain hook was still running call 2 at its deadline 2026-03-01T12:00:00Z and was killed"},
		{&InvalidSpecError{Hook: "predrain", Reason: "unknown hook"}, "predrain hook: unknown hook"},
		{&InvalidSpecError{Hook: Drain, Field: "exec", Reason: "must not be empty"}, "drain hook: exec: must not be empty"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
	assert.Equal(t, "ab…", truncate("abé", 3), "cut before a split rune")
	assert.Equal(t, "…b€", tail("a€b€", 6), "start after a split rune")
}
