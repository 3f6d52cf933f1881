package cli

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"github.com/vbauerster/mpb/v8"

	"github.com/slipway-dev/slipway/internal/contract"
)

// fakeClock is the time the display reads; mpb's goroutines read it while the test sets it.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) set(t time.Time)      { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) now() time.Time       { return time.Unix(0, c.ns.Load()).UTC() }
func newFakeClock(t time.Time) *fakeClock { c := &fakeClock{}; c.set(t); return c }

// frameWriter keeps each frame mpb flushes (one Write per frame) as text without ANSI codes.
type frameWriter struct {
	mu     sync.Mutex
	cond   *sync.Cond
	frames []string
}

var ansiCode = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

func newFrameWriter() *frameWriter {
	w := &frameWriter{}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frames = append(w.frames, ansiCode.ReplaceAllString(string(p), ""))
	w.cond.Broadcast()
	return len(p), nil
}

// frame waits for the n-th frame (from 1) and returns it.
func (w *frameWriter) frame(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.frames) < n {
		w.cond.Wait()
	}
	return w.frames[n-1]
}

func (w *frameWriter) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.frames) == 0 {
		return ""
	}
	return w.frames[len(w.frames)-1]
}

// newTestTTYView draws 80 columns into w, redrawing only when the test sends on the returned
// channel (and once more by itself when the last step ends), reading the time from clock.
func newTestTTYView(w *frameWriter, clock *fakeClock) (*ttyView, chan<- any) {
	refresh := make(chan any)
	return newTTYView(clock.now, mpb.WithOutput(w), mpb.WithWidth(80), mpb.WithManualRefresh(refresh), mpb.ForceTTY()), refresh
}

// The live display draws a line per step in the order they started: a spinner and the elapsed
// time while it runs, then its mark, duration and detail or error; Done leaves the last frame.
func TestTTYViewDrawsStepsLive(t *testing.T) {
	w, clock := newFrameWriter(), newFakeClock(stepT0)
	view, refresh := newTestTTYView(w, clock)

	view.Update(stepSnapshot("op-1", 1, runningStep("fetch-config", 1, 0)))
	clock.set(stepAt(1230 * time.Millisecond))
	refresh <- struct{}{}
	require.Equal(t, "  ⠹ fetch-config      1.2s\n", w.frame(1))

	view.Update(stepSnapshot("op-1", 1, endedStep("fetch-config", "done", 1, 0, 1500*time.Millisecond, "rev abc123", ""),
		runningStep("tf-apply", 1, 1500*time.Millisecond)))
	clock.set(stepAt(4500 * time.Millisecond))
	refresh <- struct{}{}
	require.Equal(t, "  ✓ fetch-config      1.5s      rev abc123\n"+
		"  ⠋ tf-apply          3s\n", w.frame(2))
	clock.set(stepAt(4750 * time.Millisecond))
	refresh <- struct{}{}
	require.Equal(t, "  ✓ fetch-config      1.5s      rev abc123\n"+
		"  ⠹ tf-apply          3.3s\n", w.frame(3))

	view.Update(stepSnapshot("op-1", 1, endedStep("fetch-config", "done", 1, 0, 1500*time.Millisecond, "rev abc123", ""),
		endedStep("tf-apply", "failed", 1, 1500*time.Millisecond, 5*time.Second, "", "exit status 1\nError: quota exceeded"),
		endedStep("notify", "skipped", 1, 5*time.Second, 5*time.Second, "nobody to tell", "")))
	clock.set(stepAt(time.Minute)) // ended steps keep their own duration
	view.Done()
	require.Equal(t, "  ✓ fetch-config      1.5s      rev abc123\n"+
		"  ✗ tf-apply          3.5s      exit status 1 Error: quota exceeded\n"+
		"  – notify            skipped   nobody to tell\n", w.last())
	view.Done() // twice is harmless
}

// Done on an interrupted wait freezes the running steps' time where the display stopped; lines
// never run wider than the display.
func TestTTYViewDoneAbortsRunningSteps(t *testing.T) {
	w, clock := newFrameWriter(), newFakeClock(stepT0)
	view, _ := newTestTTYView(w, clock)
	view.Update(stepSnapshot("op-1", 2,
		endedStep("tf-apply", "failed", 1, 0, time.Second, "", "quota"),
		endedStep("fetch-config", "done", 2, 2*time.Second, 2*time.Second, strings.Repeat("a very long detail ", 10), ""),
		runningStep("tf-apply", 2, 2*time.Second)))
	clock.set(stepAt(7 * time.Second))
	view.Done()
	view.Update(stepSnapshot("op-1", 2, endedStep("tf-apply", "done", 2, 2*time.Second, 8*time.Second, "", "")))
	last := w.last()
	require.Regexp(t, `^  ✗ tf-apply          1s        quota\n`+
		`  ✓ fetch-config #2   0s        a very long detail a very long detail .*…\n`+
		`  · tf-apply #2       5s\n$`, last)
	for _, line := range strings.Split(strings.TrimSuffix(last, "\n"), "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(line), 80, line)
	}
}

// A view that saw no steps draws nothing and stops at once.
func TestTTYViewWithoutStepsDrawsNothing(t *testing.T) {
	w, clock := newFrameWriter(), newFakeClock(stepT0)
	view, _ := newTestTTYView(w, clock)
	view.Update(&contract.Status{})
	view.Done()
	require.Empty(t, w.frames)
}

// stepLine draws one row at a moment: the spinner frame and elapsed time come from the clock.
func TestStepLine(t *testing.T) {
	row := stepRow{Op: "op-1", Name: "tf-apply", Attempt: 1, State: contract.StepRunning, Started: stepT0}
	require.Equal(t, "  ⠋ tf-apply          0s", stepLine(row, stepT0.Add(-time.Second), nil)) // a clock behind the server's
	require.Equal(t, "  ⠙ tf-apply          100ms", stepLine(row, stepAt(149*time.Millisecond), nil))
	require.Equal(t, "  ⠏ tf-apply          1m2.9s", stepLine(row, stepAt(62940*time.Millisecond), nil))
	stopped := stepAt(2 * time.Second)
	require.Equal(t, "  · tf-apply          2s", stepLine(row, stepAt(time.Hour), &stopped))
	row.State, row.Ended, row.Detail, row.Error, row.Attempt = contract.StepDone, stepAt(1234*time.Millisecond), "applied", "", 3
	require.Equal(t, "  ✓ tf-apply #3       1.234s    applied", stepLine(row, stepAt(time.Hour), nil))
	row.State, row.Detail, row.Error = contract.StepFailed, "", "boom\n\tat line 3"
	require.Equal(t, "  ✗ tf-apply #3       1.234s    boom at line 3", stepLine(row, stepAt(time.Hour), nil))
	row.State, row.Error = contract.StepSkipped, ""
	require.Equal(t, "  – tf-apply #3       skipped", stepLine(row, stepAt(time.Hour), nil))
}
