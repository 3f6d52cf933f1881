package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// repinTarget is a re-pin's target, checked against the releases it names (--to, or an undo's
// pins), never main's stacks/<name>/: each must exist and its files load from the repository it
// was cut from, so a stack kept only in the stacks repository rolls out too. Its plans
// fingerprint with the stateful: lists of those releases.
func (a *Activities) repinTarget(ctx context.Context, spec contract.RolloutSpec, head string) (*rolloutTarget, error) {
	if len(spec.Set) > 0 || spec.StackRev != "" {
		return nil, notAllowedf("--to %s: a re-pin rolls out a release alone; roll --set or --stack-rev out separately", cmp.Or(spec.To, "(the pins)"))
	}
	rels := []string{spec.To}
	if spec.To == "" {
		rels = slices.Sorted(maps.Values(spec.Pins))
	}
	t := &rolloutTarget{spec: spec, head: head, set: map[string]any{}}
	for _, r := range slices.Compact(rels) {
		rel, err := a.resolveRelease(ctx, spec.Stack, r)
		var stack *config.Stack
		if err == nil {
			stack, err = a.releaseStack(ctx, rel)
		}
		var app *temporal.ApplicationError
		switch {
		case errors.As(err, &app) && app.NonRetryable():
			return nil, notAllowedf("--to %s: %s", r, errorText(err))
		case err != nil:
			return nil, err // a read that failed: the activity tries again
		}
		if stack.Schema != nil {
			t.stateful = append(t.stateful, stack.Schema.Stateful...)
		}
	}
	slices.Sort(t.stateful)
	t.stateful = slices.Compact(t.stateful)
	return t, nil
}

// downgradeError is a re-pin to a release older than the one the instance runs, without --allow-downgrade.
type downgradeError struct {
	ref      contract.Ref
	from, to string
}

func (e *downgradeError) Error() string {
	return fmt.Sprintf("--to %s: older than the release %s runs (%s); add --allow-downgrade to move it back", e.to, e.ref, e.from)
}

// comparePin is compare for a re-pin: the instance's file as it is, and with its stack: line
// naming the release (--to, or its own from an undo's pins).
func (a *Activities) comparePin(ctx context.Context, t *rolloutTarget, ref contract.Ref) (cur, des configView, err error) {
	files, err := a.Forge.ReadDir(ctx, t.head, ref.Dir())
	if err != nil {
		return cur, des, classify(err)
	}
	file, ok := files[instanceFile]
	if !ok {
		return cur, des, errors.New("no config on main")
	}
	to := t.spec.To
	if to == "" {
		if to = t.spec.Pins[ref.String()]; to == "" {
			if t.spec.Undoes == "" { // a deadline's wave pins only its own instances
				return cur, des, fmt.Errorf("not in this wave of %d instance(s)", len(t.spec.Pins))
			}
			return cur, des, fmt.Errorf("rollout %s did not change it", t.spec.Undoes)
		}
	}
	next, from, err := repin(file, t.spec.Stack, to)
	if err != nil {
		return cur, des, err
	}
	if from != "" && from != to && !t.spec.AllowDowngrade && config.OlderVersion(to, from) {
		return cur, des, &downgradeError{ref: ref, from: from, to: to}
	}
	cur.show, des.show = contract.PinShow(t.spec.Stack, from), contract.PinShow(t.spec.Stack, to)
	des.yaml = string(next)
	return cur, des, nil
}
