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

// planRefusal is an instance's line that refuses the whole plan as bad input (a downgrade, a
// --set its release refuses), not a skip.
type planRefusal struct{ msg string }

func (e *planRefusal) Error() string { return e.msg }

// readFailure is an instance's line that could not be read (a read that failed): the activity
// tries again rather than skip the instance.
type readFailure struct{ err error }

func (e *readFailure) Error() string { return e.err.Error() }
func (e *readFailure) Unwrap() error { return e.err }

// releasedTarget is the target of a --set rollout of a stack with no files on main, only releases
// (kept in the stacks repository): each instance's --set is checked against the release it runs
// (releasedStack), and --stack-rev, a commit of main's stacks/<name>/, is refused.
func (a *Activities) releasedTarget(ctx context.Context, t *rolloutTarget) (*rolloutTarget, error) {
	dir := config.StackDir(t.spec.Stack)
	r, err := a.readReleases(ctx, t.head, t.spec.Stack)
	if err != nil {
		return nil, err
	}
	if len(r.Releases) == 0 {
		return nil, notAllowedf("--stack %s: no such stack on main (%s/ is missing), nor a release of it", t.spec.Stack, dir)
	}
	if t.spec.StackRev != "" {
		return nil, notAllowedf("--stack-rev %s: stack %s has no files on the GitOps repository's main (%s/ is missing): it lives in the stacks repository (SLIPWAY_STACKS_REPO); roll out a release of it with --to RELEASE",
			t.spec.StackRev, t.spec.Stack, dir)
	}
	return t, nil
}

// releasedStack is the stack inst's deploy renders: the release it runs (its pin, else its stack's
// default channel's), loaded once per stack: line, with the rollout's --set checked against its
// schema; main's stack when it runs main's head. An instance that would render main's
// stacks/<name>/ when it is missing, or a release that cannot be loaded (unknown, or a worker
// without its repository), refuses the plan.
func (a *Activities) releasedStack(ctx context.Context, t *rolloutTarget, ref contract.Ref, inst *config.Instance) (*config.Stack, error) {
	failed := func(err error) error {
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.NonRetryable() { // an unknown release, a worker without its repository
			return &planRefusal{fmt.Sprintf("%s runs %s: %s", ref, inst.Stack, errorText(err))}
		}
		return &readFailure{err}
	}
	if t.releases == nil {
		t.releases, t.released = map[string]*config.Releases{}, map[string]*config.Stack{}
	}
	r, ok := t.releases[inst.StackName()]
	if !ok {
		var err error
		if r, err = a.readReleases(ctx, t.head, inst.StackName()); err != nil {
			return nil, failed(err)
		}
		t.releases[inst.StackName()] = r
	}
	rel, err := releaseOf(r, inst)
	if err != nil {
		return nil, failed(err)
	}
	if rel.Commit == "" && t.stack != nil {
		return t.stack, nil
	}
	if rel.Commit == "" {
		return nil, &planRefusal{fmt.Sprintf("stack: %s runs stack %s at main's head (unpinned, or on a channel holding head), and stack %s has no files on the GitOps repository's main (%s/ is missing): pin it to a release (stack: %s@VERSION, or rollout start --to RELEASE)",
			ref, rel.Stack, rel.Stack, config.StackDir(rel.Stack), rel.Stack)}
	}
	key := rel.Stack + "@" + rel.Version
	stack, ok := t.released[key]
	if !ok {
		if stack, err = a.loadRelease(ctx, rel); err != nil {
			return nil, failed(err)
		}
		t.released[key] = stack
		for _, r := range stack.Schema.Stateful { // the plans' fingerprints mark what each release marks
			if !slices.Contains(t.stateful, r) {
				t.stateful = append(t.stateful, r)
			}
		}
	}
	if err := t.checkSet(stack, fmt.Sprintf("%s runs %s", ref, key)); err != nil {
		return nil, &planRefusal{err.Error()}
	}
	return stack, nil
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
		return cur, des, &planRefusal{fmt.Sprintf("--to %s: older than the release %s runs (%s); add --allow-downgrade to move it back", to, ref, from)}
	}
	cur.show, des.show = contract.PinShow(t.spec.Stack, from), contract.PinShow(t.spec.Stack, to)
	des.yaml = string(next)
	return cur, des, nil
}
