package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/windows"
)

// DeadlineSet is what `stack deadline` did: the deadline recorded (its planned waves), the merge
// that recorded it, how many instances were behind, and each wave's rollout, started.
type DeadlineSet struct {
	Deadline contract.StackDeadline `json:"deadline"`
	MergeSHA string                 `json:"mergeSHA"`
	Behind   int                    `json:"behind"`
	Rollouts []string               `json:"rollouts"`
}

// DeadlineMissedError: the instances below the minimum cannot all be upgraded inside their change
// windows before the deadline (CLI exit 1); nothing was recorded.
type DeadlineMissedError struct {
	Message string
}

func (e *DeadlineMissedError) Error() string { return e.Message }

// DeadlineInputError is a deadline the stack's releases cannot take; Field is "stack" or "min",
// which the CLI names as STACK and --min, the API as stack and min.
type DeadlineInputError struct{ Field, Problem string }

func (e *DeadlineInputError) Error() string { return e.Field + ": " + e.Problem }

// ParseBy reads a deadline: RFC 3339 or a date (its 00:00 UTC), after now. The error names the
// value, not the field: the CLI's is --by, the API's by.
func ParseBy(by string, now time.Time) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, by)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, by); err != nil {
			return t, fmt.Errorf("%q: must be RFC 3339 (2027-01-15T18:00:00Z) or a date (2027-01-15)", by)
		}
	}
	if !t.After(now) {
		return t, fmt.Errorf("%s: is not in the future", t.UTC().Format(time.RFC3339))
	}
	return t.UTC(), nil
}

// BehindOf is the instances (TENANT/NAME) running a release older than minVersion, or main's head.
func BehindOf(items []ListItem, minVersion string) []string {
	var out []string
	for _, it := range items {
		if _, v, _ := strings.Cut(it.Release, "@"); v == "" || config.OlderVersion(v, minVersion) {
			out = append(out, it.Tenant+"/"+it.Name)
		}
	}
	return out
}

// SetDeadline plans the instances of stack below d.Min into waves of size (or percent of those
// behind) inside ws from now, refuses a deadline they cannot meet (DeadlineMissedError), records
// it through the StackWorkflow (the policy decides on the caller) and starts each wave. The
// caller has checked that d.Min is a release of the stack; actor is the waves' note.
func (c *Client) SetDeadline(ctx context.Context, ws windows.Set, stack string, d contract.StackDeadline, size, percent int, id, actor string) (DeadlineSet, error) {
	var out DeadlineSet
	rels, err := c.StackRequest(ctx, contract.StackRequest{Op: contract.StackOpReleases, Stack: stack})
	if err != nil {
		return out, err
	}
	if len(rels.Releases) == 0 {
		return out, &DeadlineInputError{"stack", fmt.Sprintf("%q: has no releases, so no deadline (an unknown stack has none)", stack)}
	}
	if _, ok := (&config.Releases{Stack: stack, Releases: rels.Releases}).Find(d.Min); !ok {
		return out, &DeadlineInputError{"min", fmt.Sprintf("%s: not a release of stack %s (stack releases lists them)", d.Min, stack)}
	}
	items, err := c.List(ctx, ListFilter{Stack: stack})
	if err != nil {
		return out, err
	}
	behind := BehindOf(items, d.Min)
	if percent > 0 {
		size = (len(behind)*percent + 99) / 100
	}
	waves, missed := ws.PlanWaves(stack, behind, size, time.Now(), d.By)
	if len(missed) > 0 {
		return out, &DeadlineMissedError{Message: fmt.Sprintf("stack %s: every instance on %s by %s cannot be met inside the change windows: %d instance(s) would miss it: %s (their windows open too rarely before then; nothing recorded)",
			stack, d.Min, d.By.Format(time.RFC3339), len(missed), strings.Join(missed, ", "))}
	}
	d.Waves = nil
	for _, w := range waves {
		d.Waves = append(d.Waves, contract.DeadlineWave(w))
	}
	res, err := c.StackRequest(ctx, contract.StackRequest{Op: contract.StackOpDeadline, Stack: stack, Version: d.Min, Deadline: &d, ID: id})
	if err != nil {
		return out, err
	}
	out = DeadlineSet{Deadline: d, MergeSHA: res.MergeSHA, Behind: len(behind), Rollouts: []string{}}
	out.Rollouts, err = c.startWaves(ctx, stack, res.MergeSHA, d, actor)
	return out, err
}

// startWaves starts each wave as a rollout re-pinning its instances to the minimum (an undo's
// per-instance pins: instances already newer are never moved back), held by Temporal until the
// wave's opening. The IDs name the recording merge, so setting a deadline again starts new ones.
func (c *Client) startWaves(ctx context.Context, stack, merge string, d contract.StackDeadline, actor string) ([]string, error) {
	ids := []string{}
	for i, wv := range d.Waves {
		spec := contract.RolloutSpec{ID: contract.DeadlineWaveRollout(merge, i+1), Stack: stack, Tenant: wv.Tenant,
			Pins: map[string]string{}, BatchSize: len(wv.Instances), Order: contract.OrderName, MaxFailures: 1, Actor: actor}
		for _, ref := range wv.Instances {
			spec.Pins[ref] = d.Min
		}
		// A retried request (same merge) finds its waves started: the same waves, not a conflict.
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if err := c.startRollout(ctx, spec, wv.At); err != nil && !errors.As(err, &started) {
			return ids, fmt.Errorf("deadline recorded, but wave %d did not start (start it with slipway rollout start --stack %s --tenant %s --to %s): %w", i+1, stack, wv.Tenant, d.Min, err)
		}
		ids = append(ids, spec.ID)
	}
	return ids, nil
}

// DeadlineStatus is a deadline's progress: how many instances are still behind, and when their
// waves, planned again from now with the size recorded inside the windows, would finish.
type DeadlineStatus struct {
	Min    string    `json:"min"`
	By     time.Time `json:"by"`
	Behind int       `json:"behind"`
	// Finish is when the last wave would open (zero when none is behind, or some would miss it).
	Finish time.Time `json:"finish,omitzero"`
	// AtRisk are the instances (TENANT/NAME) that would miss the deadline.
	AtRisk []string `json:"atRisk,omitempty"`
}

// DeadlineProgress is each deadline's progress over items (the instances of stack shown).
func DeadlineProgress(ws windows.Set, stack string, deadlines []contract.StackDeadline, items []ListItem, now time.Time) []DeadlineStatus {
	out := []DeadlineStatus{}
	for _, d := range deadlines {
		behind := BehindOf(items, d.Min)
		st := DeadlineStatus{Min: d.Min, By: d.By, Behind: len(behind)}
		if len(behind) > 0 {
			size := (len(behind)*25 + 99) / 100
			if len(d.Waves) > 0 {
				size = len(slices.MaxFunc(d.Waves, func(a, b contract.DeadlineWave) int { return len(a.Instances) - len(b.Instances) }).Instances)
			}
			waves, missed := ws.PlanWaves(stack, behind, size, now, d.By)
			if st.AtRisk = missed; len(missed) == 0 {
				st.Finish = waves[len(waves)-1].At
			}
		}
		out = append(out, st)
	}
	return out
}
