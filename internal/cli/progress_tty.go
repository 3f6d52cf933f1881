package cli

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/slipway-dev/slipway/internal/contract"
)

// spinnerFrames turn once a second: the frame comes from the step's elapsed time, not from how
// often the display redraws, so a given moment always draws the same line.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// ttyRefresh is how often the live display redraws (the elapsed times tick at this rate).
const ttyRefresh = 100 * time.Millisecond

// ttyView draws the steps live with mpb, one line per step in the order they started: a spinner
// and the elapsed time while the step runs, then its mark, duration and detail or error. The rows
// are the stepView's; each bar draws a copy of its row with stepLine, so drawing is a function
// of the row and the clock.
type ttyView struct {
	now     func() time.Time
	opts    []mpb.ContainerOption
	p       *mpb.Progress // made when the first row arrives, so nothing is drawn for no steps
	model   stepView
	cells   []*atomic.Pointer[stepRow] // the row each bar draws, read by mpb's goroutines
	bars    []*mpb.Bar
	stopped atomic.Pointer[time.Time] // set by Done: rows still running freeze their time there
	done    bool
}

// newTTYView draws with a Progress made from opts (its output, refresh and width), reading the
// time from now.
func newTTYView(now func() time.Time, opts ...mpb.ContainerOption) *ttyView {
	return &ttyView{now: now, opts: opts}
}

// Update adds a line for each step that started and finishes the lines of steps that ended.
// New bars are added before others finish: mpb redraws at once when the last running bar
// finishes, and a step handing over to the next is not that moment.
func (v *ttyView) Update(st *contract.Status) {
	if v.done {
		return
	}
	var finish []int
	for _, i := range v.model.update(st) {
		row := v.model.rows[i]
		if i < len(v.cells) {
			if row.ended() && !v.cells[i].Load().ended() {
				finish = append(finish, i)
			}
			v.cells[i].Store(&row)
			continue
		}
		if row.ended() {
			finish = append(finish, i)
		}
		v.add(row)
	}
	for _, i := range finish {
		if v.model.rows[i].State == contract.StepFailed {
			v.bars[i].Abort(false)
		} else {
			v.bars[i].SetTotal(1, true)
		}
	}
}

func (v *ttyView) add(row stepRow) {
	if v.p == nil {
		v.p = mpb.New(v.opts...)
	}
	cell := new(atomic.Pointer[stepRow])
	cell.Store(&row)
	draw := func(decor.Statistics) string { return stepLine(*cell.Load(), v.now(), v.stopped.Load()) }
	bar := v.p.New(0, mpb.NopStyle(), mpb.BarFillerTrim(), mpb.PrependDecorators(decor.Any(draw)))
	v.cells, v.bars = append(v.cells, cell), append(v.bars, bar)
}

// Done stops the display: steps still running (the wait was interrupted) are aborted with
// their time frozen, and the last frame is drawn before it returns, so what is printed next
// goes below it.
func (v *ttyView) Done() {
	if v.done {
		return
	}
	v.done = true
	if v.p == nil {
		return
	}
	now := v.now()
	v.stopped.Store(&now)
	for i, b := range v.bars {
		if !v.model.rows[i].ended() {
			b.Abort(false)
		}
	}
	v.p.Wait()
}

// stepLine is one step's line at now; stopped is when the display stopped, or nil.
func stepLine(r stepRow, now time.Time, stopped *time.Time) string {
	var mark, when string
	switch r.State {
	case contract.StepRunning:
		at := now
		if stopped != nil {
			at = *stopped
		}
		d := max(at.Sub(r.Started), 0)
		if r.Started.IsZero() {
			d = 0
		}
		mark, when = spinnerFrames[int(d/ttyRefresh)%len(spinnerFrames)], d.Round(ttyRefresh).String()
		if stopped != nil {
			mark = "·"
		}
	case contract.StepDone:
		mark, when = "✓", stepDuration(r)
	case contract.StepFailed:
		mark, when = "✗", stepDuration(r)
	case contract.StepSkipped:
		mark, when = "–", "skipped"
	default:
		mark, when = "•", r.State
	}
	name := r.Name
	if r.Attempt > 1 {
		name = fmt.Sprintf("%s #%d", name, r.Attempt)
	}
	line := fmt.Sprintf("  %s %-17s %-8s", mark, name, when)
	for _, s := range []string{r.Detail, r.Error} {
		if s = oneLine(s); s != "" {
			line += "  " + s
		}
	}
	return strings.TrimRight(line, " ")
}

// stepDuration is the step's duration as the plain lines print it, or "" without both times.
func stepDuration(r stepRow) string {
	if r.Started.IsZero() || r.Ended.IsZero() {
		return ""
	}
	return r.Ended.Sub(r.Started).Round(time.Millisecond).String()
}

// oneLine folds s onto one line: a line break inside a bar would break the redraw.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
