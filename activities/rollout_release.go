package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// checkReleases refuses a rollout to a release the stack does not have, naming --to.
func (a *Activities) checkReleases(ctx context.Context, spec contract.RolloutSpec) error {
	rels := []string{spec.To}
	if spec.To == "" {
		rels = nil
		for _, r := range spec.Pins {
			if !slices.Contains(rels, r) {
				rels = append(rels, r)
			}
		}
		slices.Sort(rels)
	}
	for _, r := range rels {
		if _, err := a.resolveRelease(ctx, spec.Stack, r); err != nil {
			return notAllowedf("--to %s: %s", r, errorText(err))
		}
	}
	return nil
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
