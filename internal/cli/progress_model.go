package cli

import (
	"fmt"
	"slices"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// stepRow is one step of one attempt of one operation, as a progress display shows it.
type stepRow struct {
	Op      string // operation ID
	Name    string
	Attempt int
	State   string // contract.StepRunning, StepDone, StepFailed or StepSkipped
	Started time.Time
	Ended   time.Time
	Detail  string
	Error   string
}

func (r stepRow) key() string { return fmt.Sprintf("%s/%d/%s", r.Op, r.Attempt, r.Name) }

// ended says whether the step has its final state; a row that ended never runs again.
func (r stepRow) ended() bool { return r.State != contract.StepRunning }

// stepView folds status snapshots into step rows, one per operation, attempt and step name, in
// the order the steps were first seen (the order they started). It draws nothing: renderers
// draw its rows. It is not safe for concurrent use.
type stepView struct {
	rows  []stepRow
	index map[string]int // row key -> index in rows
}

// update folds st into the rows and returns the indexes of the rows it added or changed, in
// order. A snapshot never takes a row back from ended to running: the display only moves forward.
func (v *stepView) update(st *contract.Status) []int {
	if st == nil || st.Operation == nil {
		return nil
	}
	if v.index == nil {
		v.index = map[string]int{}
	}
	var changed []int
	for _, s := range st.Operation.Steps {
		r := stepRow{Op: st.Operation.ID, Name: s.Name, Attempt: s.Attempt, State: s.Status,
			Started: s.StartedAt, Ended: s.EndedAt, Detail: s.Detail, Error: s.Error}
		if rt := st.Operation.Retrying; rt != nil && rt.Step == s.Name && s.Status == contract.StepRunning {
			r.Detail = retryingDetail(rt) // a step that keeps failing is not just running
		}
		i, ok := v.index[r.key()]
		switch {
		case !ok:
			i = len(v.rows)
			v.index[r.key()] = i
			v.rows = append(v.rows, r)
		case v.rows[i] == r, v.rows[i].ended() && !r.ended():
			continue
		default:
			v.rows[i] = r
		}
		if !slices.Contains(changed, i) {
			changed = append(changed, i)
		}
	}
	return changed
}
