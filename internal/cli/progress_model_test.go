package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

var stepT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func stepAt(d time.Duration) time.Time { return stepT0.Add(d) }

func stepSnapshot(op string, attempt int, recs ...contract.StepRecord) *contract.Status {
	return &contract.Status{Operation: &contract.OperationStatus{ID: op, Attempt: attempt, Result: contract.ResultRunning, Steps: recs}}
}

func runningStep(name string, attempt int, started time.Duration) contract.StepRecord {
	return contract.StepRecord{Name: name, Status: contract.StepRunning, Attempt: attempt, StartedAt: stepAt(started)}
}

func endedStep(name, status string, attempt int, started, end time.Duration, detail, err string) contract.StepRecord {
	return contract.StepRecord{Name: name, Status: status, Attempt: attempt, StartedAt: stepAt(started), EndedAt: stepAt(end),
		Detail: detail, Error: err}
}

// The rows follow the snapshots: a row per operation, attempt and step, in the order the steps
// were first seen, changed in place as the step ends; update says which rows it touched.
func TestStepViewFoldsSnapshotsIntoRows(t *testing.T) {
	var v stepView
	steps := []struct {
		st      *contract.Status
		changed []int
		rows    []stepRow
	}{{
		st: &contract.Status{}, // no operation: nothing to show
	}, {
		st:      stepSnapshot("op-1", 1, runningStep("fetch-config", 1, 0)),
		changed: []int{0},
		rows:    []stepRow{{Op: "op-1", Name: "fetch-config", Attempt: 1, State: "running", Started: stepAt(0)}},
	}, {
		// The same snapshot again (a state change, not a step event) changes nothing.
		st:   stepSnapshot("op-1", 1, runningStep("fetch-config", 1, 0)),
		rows: []stepRow{{Op: "op-1", Name: "fetch-config", Attempt: 1, State: "running", Started: stepAt(0)}},
	}, {
		st: stepSnapshot("op-1", 1, endedStep("fetch-config", "done", 1, 0, time.Second, "rev abc", ""),
			runningStep("tf-apply", 1, time.Second)),
		changed: []int{0, 1},
		rows: []stepRow{
			{Op: "op-1", Name: "fetch-config", Attempt: 1, State: "done", Started: stepAt(0), Ended: stepAt(time.Second), Detail: "rev abc"},
			{Op: "op-1", Name: "tf-apply", Attempt: 1, State: "running", Started: stepAt(time.Second)},
		},
	}, {
		// The first attempt failed; the retry's snapshot keeps its steps and adds attempt 2's,
		// and a stale running record never takes an ended row back.
		st: stepSnapshot("op-1", 2, endedStep("fetch-config", "done", 1, 0, time.Second, "rev abc", ""),
			endedStep("tf-apply", "failed", 1, time.Second, 3*time.Second, "", "quota"),
			endedStep("fetch-config", "skipped", 2, 5*time.Second, 5*time.Second, "done before", ""),
			runningStep("tf-apply", 2, 5*time.Second), runningStep("fetch-config", 1, 0)),
		changed: []int{1, 2, 3},
		rows: []stepRow{
			{Op: "op-1", Name: "fetch-config", Attempt: 1, State: "done", Started: stepAt(0), Ended: stepAt(time.Second), Detail: "rev abc"},
			{Op: "op-1", Name: "tf-apply", Attempt: 1, State: "failed", Started: stepAt(time.Second), Ended: stepAt(3 * time.Second), Error: "quota"},
			{Op: "op-1", Name: "fetch-config", Attempt: 2, State: "skipped", Started: stepAt(5 * time.Second), Ended: stepAt(5 * time.Second), Detail: "done before"},
			{Op: "op-1", Name: "tf-apply", Attempt: 2, State: "running", Started: stepAt(5 * time.Second)},
		},
	}, {
		// Another operation's steps are other rows, even with the same names.
		st:      stepSnapshot("op-2", 1, runningStep("fetch-config", 1, 9*time.Second)),
		changed: []int{4},
	}}
	for i, s := range steps {
		require.Equal(t, s.changed, v.update(s.st), "snapshot %d", i)
		if s.rows != nil {
			require.Equal(t, s.rows, v.rows, "snapshot %d", i)
		}
	}
	require.Len(t, v.rows, 5)
	require.Equal(t, stepRow{Op: "op-2", Name: "fetch-config", Attempt: 1, State: "running", Started: stepAt(9 * time.Second)}, v.rows[4])
	require.Nil(t, v.update(nil))
}

// The plain view prints what printSteps always printed: a line per step and status.
func TestPlainViewPrintsALinePerStepStatus(t *testing.T) {
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	view := g.progressView(false)
	require.IsType(t, &plainView{}, view)
	view.Update(stepSnapshot("op-1", 1, runningStep("fetch-config", 1, 0)))
	view.Update(stepSnapshot("op-1", 1, runningStep("fetch-config", 1, 0)))
	view.Update(stepSnapshot("op-1", 1, endedStep("fetch-config", "done", 1, 0, 1234*time.Millisecond, "rev abc", ""),
		endedStep("tf-apply", "failed", 1, time.Second, 3*time.Second, "", "quota")))
	view.Done()
	require.Equal(t, "  fetch-config      running\n"+
		"  fetch-config      done (1.234s)  rev abc\n"+
		"  tf-apply          failed (2s)  quota\n", out.String())
}

// The live display needs a terminal that takes one; the environment can say no.
func TestLiveProgressEnvironment(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	require.True(t, liveProgress(env("TERM", "xterm-256color")))
	require.True(t, liveProgress(env()))
	require.False(t, liveProgress(env("TERM", "dumb")))
	require.False(t, liveProgress(env("TERM", "xterm", "NO_COLOR", "1")))
	require.False(t, liveProgress(env("SLIPWAY_PROGRESS", "plain")))

	// A file is no terminal: the plain lines, whatever the environment says.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer f.Close()
	require.False(t, drawable(f))
	require.IsType(t, &plainView{}, (&globals{streams: Streams{Out: f}}).progressView(false))
}

// A running step that keeps failing says so in its row, and the plain view prints it once per
// attempt: Retrying, the attempt, the next try and the last error.
func TestRetryingStepShowsInProgress(t *testing.T) {
	st := stepSnapshot("op-1", 1, runningStep("merge-mr", 1, 0))
	st.Operation.Retrying = &contract.StepRetry{Step: "merge-mr", Attempt: 3, LastError: "forge answered 500", Since: stepT0, NextTry: stepAt(7 * time.Second)}
	var v stepView
	require.Equal(t, []int{0}, v.update(st))
	require.Equal(t, "Retrying (attempt 3) since 2026-01-02T03:04:05Z next try 2026-01-02T03:04:12Z  forge answered 500  (slipway retry tries it now)", v.rows[0].Detail)

	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	seen := map[string]bool{}
	g.printSteps(st, seen)
	g.printSteps(st, seen)
	require.Equal(t, "  merge-mr          running\n  merge-mr          Retrying (attempt 3) since 2026-01-02T03:04:05Z next try 2026-01-02T03:04:12Z  forge answered 500  (slipway retry tries it now)\n", out.String())
}
