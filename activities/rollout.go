package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Fleet of instances as a rollout drives them: set from the worker's Temporal client.
type Instances interface {
	// List returns the running instances of stack (and tenant, if set) with their state and Ready.
	List(ctx context.Context, stack, tenant string) ([]contract.ListedInstance, error)
	// ListPage is one page of List: at most size from page (nil: the first), and the next page's token (nil after the last).
	ListPage(ctx context.Context, stack, tenant string, size int, page []byte) ([]contract.ListedInstance, []byte, error)
	// Deployed is the revision of the instance's last successful deploy ("" for none) and its Ready.
	Deployed(ctx context.Context, ref contract.Ref) (revision, ready string, err error)
	// Deploy sends a deploy (configYAML "" deploys main's rendering as it is) and returns once it is accepted.
	// A refusal is a *RefusedError; Busy says the instance runs another operation.
	Deploy(ctx context.Context, ref contract.Ref, configYAML, rollout, actor, requestID string, priority int) error
	// Retry resumes the instance's failed operation; refusals as for Deploy.
	Retry(ctx context.Context, ref contract.Ref, actor, requestID string) error
	// CheckDrift has the instance run a drift check and waits for its verdict; refusals as for Deploy.
	CheckDrift(ctx context.Context, ref contract.Ref, actor, requestID string) (contract.DriftOutput, error)
	// Ready is the instance's Ready condition as its status shows it (live from the deployer's health).
	Ready(ctx context.Context, ref contract.Ref) (lifecycle.Condition, error)
	// PlanConfig has the instance plan configYAML (a dry run, `slipway plan -f`) and waits for it; refusals as for Deploy.
	PlanConfig(ctx context.Context, ref contract.Ref, configYAML, actor, requestID string) (contract.OperationResult, error)
	// Approve approves the instance's waiting plan as the actor in ctx; refusals as for Deploy.
	Approve(ctx context.Context, ref contract.Ref, req contract.ApprovalRequest, requestID string) error
}

// PlanRollout computes a rollout's action list in rollout order: every instance of the stack in
// scope, with its current and desired config, or why it is skipped. It changes nothing.
func (a *Activities) PlanRollout(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	if a.Instances == nil {
		return contract.RolloutPlan{}, notAllowedf("this worker has no Temporal client to list instances")
	}
	head, err := a.Forge.Head(ctx)
	if err != nil {
		return contract.RolloutPlan{}, classify(err)
	}
	t, err := a.rolloutTarget(ctx, spec, head)
	if err != nil {
		return contract.RolloutPlan{}, err
	}
	listed, err := a.Instances.List(ctx, spec.Stack, spec.Tenant)
	if err != nil {
		return contract.RolloutPlan{}, err
	}
	sortForRollout(listed, spec.Order)
	plan := contract.RolloutPlan{Stack: spec.Stack, Head: head, Actions: make([]contract.RolloutAction, 0, len(listed))}
	for i, li := range listed {
		activity.RecordHeartbeat(ctx, i)
		act, err := a.rolloutAction(ctx, t, li)
		if err != nil {
			return contract.RolloutPlan{}, err
		}
		plan.Actions = append(plan.Actions, act)
	}
	plan.Stateful = t.stateful
	return plan, nil
}

// rolloutAction is one instance's line of the action list.
func (a *Activities) rolloutAction(ctx context.Context, t *rolloutTarget, li contract.ListedInstance) (contract.RolloutAction, error) {
	act := contract.RolloutAction{Ref: li.Ref, State: li.State, Ready: li.Ready, Action: contract.ActionSkip}
	st := lifecycle.State(li.State)
	switch {
	case st.Failed():
		act.Reason = fmt.Sprintf("failed (%s): decide first with slipway retry|resolve|abandon %s", st, li.Ref)
		return act, nil
	case st == lifecycle.Archived:
		act.Reason = "archived"
		return act, nil
	case li.Gated:
		// A deploy would wait at the gates and hold the batch; the operator removes them first.
		act.Reason = fmt.Sprintf("gated: scheduling gates hold its deploys (slipway gate list %s)", li.Ref)
		return act, nil
	case st != lifecycle.Deployed && !st.Busy():
		act.Reason = fmt.Sprintf("not deployed (%s)", st)
		return act, nil
	}
	cur, des, err := a.compare(ctx, t, li.Ref)
	var refused *planRefusal
	var failed *readFailure
	switch {
	case errors.As(err, &refused):
		return act, notAllowedf("%s", refused) // refused before anything starts
	case errors.As(err, &failed):
		return act, failed.err
	}
	if err != nil {
		act.Reason = errorText(err)
		return act, nil
	}
	act.Current, act.Desired = cur.show, des.show
	switch {
	case cur.show == des.show && !st.Busy():
		act.Reason = contract.ReasonAtTarget
	default:
		act.Action = contract.ActionUpdate
		if st.Busy() {
			act.Reason = fmt.Sprintf("busy now (%s): tried in its batch, and in a later one if still busy", st)
		}
	}
	return act, nil
}

// RolloutDeploy sends one instance its deploy for a rollout (or, on resume, retries its failed
// one). The request ID makes a retried activity send it once; the instance tells the rollout
// when the deploy ends.
func (a *Activities) RolloutDeploy(ctx context.Context, in contract.RolloutDeployInput) (contract.RolloutDeployOutput, error) {
	if a.Instances == nil {
		return contract.RolloutDeployOutput{}, notAllowedf("this worker has no Temporal client to reach instances")
	}
	actor := "rollout/" + in.Spec.ID
	if in.OnBehalfOf != nil {
		// Sent for the person who started the rollout: the instance records them as its requester.
		ctx = identity.With(ctx, *in.OnBehalfOf)
	}
	if in.Retry {
		out := deployOutcome(a.Instances.Retry(ctx, in.Ref, actor, in.RequestID+"/retry"))
		if out.Outcome != contract.DeployRefused {
			return out, nil
		}
		// Not failed any more (an operator decided meanwhile): deploy as for the first time.
	}
	head, err := a.Forge.Head(ctx)
	if err != nil {
		return contract.RolloutDeployOutput{}, classify(err)
	}
	t, err := a.rolloutTarget(ctx, in.Spec, head)
	if err != nil {
		return contract.RolloutDeployOutput{}, err
	}
	cur, des, err := a.compare(ctx, t, in.Ref)
	var failed *readFailure
	if errors.As(err, &failed) {
		return contract.RolloutDeployOutput{}, failed.err
	}
	if err != nil {
		return contract.RolloutDeployOutput{Outcome: contract.DeployRefused, Message: errorText(err)}, nil
	}
	if cur.show == des.show {
		_, ready, err := a.Instances.Deployed(ctx, in.Ref)
		if err != nil {
			return contract.RolloutDeployOutput{}, err
		}
		return contract.RolloutDeployOutput{Outcome: contract.DeployAtTarget, Message: contract.ReasonAtTarget, Ready: ready}, nil
	}
	err = a.Instances.Deploy(ctx, in.Ref, des.yaml, in.Rollout, actor, in.RequestID, in.Spec.Priority)
	var refused *RefusedError
	if err != nil && !errors.As(err, &refused) {
		return contract.RolloutDeployOutput{}, err // not an answer from the instance: retried
	}
	return deployOutcome(err), nil
}

// deployOutcome reads an instance's answer to a request.
func deployOutcome(err error) contract.RolloutDeployOutput {
	var refused *RefusedError
	switch {
	case err == nil:
		return contract.RolloutDeployOutput{Outcome: contract.DeployStarted}
	case errors.As(err, &refused) && refused.Busy:
		return contract.RolloutDeployOutput{Outcome: contract.DeployBusy, Message: refused.Error()}
	}
	return contract.RolloutDeployOutput{Outcome: contract.DeployRefused, Message: err.Error()}
}

// fingerprint identifies a set of files by content.
func fingerprint(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rolloutTarget is what a rollout moves instances to, read once per activity.
type rolloutTarget struct {
	spec  contract.RolloutSpec
	head  string
	stack *config.Stack // main's, which --set and --stack-rev are checked against; nil for a re-pin
	// released holds each stack: line's release its pinned instances' --set is checked against:
	// what their deploys render, whether or not main has the stack's files.
	released map[string]*config.Stack
	releases map[string]*config.Releases // by stack: each releases file read and verified once a plan
	set      map[string]any
	trees    map[string]string // revision -> fingerprint of the stack's files
	// stateful is the stateful: list of the stack deployed, so its plans fingerprint as a preview's.
	stateful []string
}

// configView is a config as the action list shows it, and as a deploy sends it.
type configView struct {
	show string
	yaml string
}

// rolloutTarget checks the spec against main: the stack exists, every --set names one of its
// parameters with a valid value, and --stack-rev holds the stack main has now. A re-pin (--to,
// an undo's pins) is checked against its releases instead (repinTarget).
func (a *Activities) rolloutTarget(ctx context.Context, spec contract.RolloutSpec, head string) (*rolloutTarget, error) {
	if spec.To != "" || len(spec.Pins) > 0 {
		return a.repinTarget(ctx, spec, head)
	}
	files, err := a.Forge.ReadDir(ctx, head, config.StackDir(spec.Stack))
	if err != nil {
		return nil, classify(err)
	}
	t := &rolloutTarget{spec: spec, head: head, set: map[string]any{}}
	for _, s := range spec.Set {
		var v any
		if err := yaml.Unmarshal([]byte(s.Value), &v); err != nil {
			return nil, notAllowedf("--set %s=%s: the value is not YAML: %v", s.Key, s.Value, err)
		}
		t.set[s.Key] = v
	}
	if len(files) == 0 {
		return a.releasedTarget(ctx, t)
	}
	stack, err := config.LoadStack(spec.Stack, files)
	if err != nil {
		return nil, invalidConfig(err)
	}
	t.stack, t.trees = stack, map[string]string{head: fingerprint(files)}
	if stack.Schema != nil {
		t.stateful = stack.Schema.Stateful
	}
	if err := t.checkSet(stack, ""); err != nil {
		return nil, notAllowedf("%s", err)
	}
	if spec.StackRev != "" {
		at, err := a.stackTree(ctx, t, spec.StackRev)
		if err != nil {
			return nil, notAllowedf("--stack-rev %s: %s", spec.StackRev, errorText(err))
		}
		if at != t.trees[head] {
			return nil, notAllowedf("--stack-rev %s: stack %s on main changed after it (main is %s); roll out main's head instead",
				spec.StackRev, spec.Stack, head)
		}
	}
	return t, nil
}

// checkSet validates the --set values against stack's schema with every other parameter at its
// default. runs names the instance and release whose schema it is ("" for main's stack).
func (t *rolloutTarget) checkSet(stack *config.Stack, runs string) error {
	var msgs []string
	for _, k := range slices.Sorted(maps.Keys(t.set)) {
		if _, ok := stack.Schema.Param(k); !ok && runs == "" {
			msgs = append(msgs, fmt.Sprintf("--set %s: stack %s has no parameter %q", k, t.spec.Stack, k))
		} else if !ok {
			msgs = append(msgs, fmt.Sprintf("--set %s: %s, which has no parameter %q", k, runs, k))
		}
	}
	if len(msgs) == 0 {
		probe := &config.Instance{Stack: stack.Name, Parameters: t.set}
		var ve *config.ValidationError
		if _, err := config.Validate(stack, probe, nil); errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				k, ok := strings.CutPrefix(fe.Field, "parameters.")
				if _, given := t.set[k]; ok && given && runs == "" {
					msgs = append(msgs, fmt.Sprintf("--set %s: %s", k, fe.Message))
				} else if ok && given {
					msgs = append(msgs, fmt.Sprintf("--set %s: %s (%s)", k, fe.Message, runs))
				}
			}
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// compare reads the instance's config on main and what the rollout makes of it.
func (a *Activities) compare(ctx context.Context, t *rolloutTarget, ref contract.Ref) (cur, des configView, err error) {
	if t.spec.To != "" || len(t.spec.Pins) > 0 {
		return a.comparePin(ctx, t, ref)
	}
	inst, err := a.committedInstance(ctx, t.head, ref)
	if err != nil {
		return cur, des, err
	}
	if inst == nil {
		return cur, des, fmt.Errorf("no config on main")
	}
	if inst.StackName() != t.spec.Stack {
		return cur, des, fmt.Errorf("its config on main is of stack %s now", inst.Stack)
	}
	// Everything but the parameters stays (approval, pool, placement, gates, protection, expiry,
	// labels): a rollout changes parameters, not where the instance runs nor its controls.
	next := *inst
	next.Parameters, next.Archived = maps.Clone(inst.Parameters), false
	maps.Copy(next.Parameters, t.set)
	stack, err := a.releasedStack(ctx, t, ref, inst)
	if err != nil {
		return cur, des, err
	}
	before, err := config.Validate(stack, inst, nil)
	if err != nil {
		return cur, des, fmt.Errorf("its config on main does not validate: %w", err)
	}
	after, err := config.Validate(stack, &next, inst)
	if err != nil {
		return cur, des, fmt.Errorf("the new config does not validate: %w", err)
	}
	keys := slices.Sorted(maps.Keys(t.set))
	cur.show, des.show = showParams(before, keys), showParams(after, keys)
	if t.spec.StackRev != "" {
		rev, _, err := a.Instances.Deployed(ctx, ref)
		if err != nil {
			return cur, des, err
		}
		if cur.show, err = a.showStack(ctx, t, rev, cur.show); err != nil {
			return cur, des, err
		}
		des.show = joinShow(des.show, "stack@"+short(t.spec.StackRev))
	}
	// Sent even without --set: the deploy renders the config again against the stack on main,
	// which is how a stack change reaches the instance's manifests and terraform.
	des.yaml = string(next.Canonical())
	return cur, des, nil
}

// showStack adds the stack revision an instance runs: the rollout's own when its files match.
func (a *Activities) showStack(ctx context.Context, t *rolloutTarget, rev, show string) (string, error) {
	if rev == "" {
		return joinShow(show, "stack@(never deployed)"), nil
	}
	tree, err := a.stackTree(ctx, t, rev)
	if err != nil {
		return "", err
	}
	if tree == t.trees[t.head] {
		return joinShow(show, "stack@"+short(t.spec.StackRev)), nil
	}
	return joinShow(show, "stack@"+short(rev)), nil
}

// stackTree fingerprints the stack's files at rev, once per revision.
func (a *Activities) stackTree(ctx context.Context, t *rolloutTarget, rev string) (string, error) {
	if fp, ok := t.trees[rev]; ok {
		return fp, nil
	}
	files, err := a.Forge.ReadDir(ctx, rev, config.StackDir(t.spec.Stack))
	if err != nil {
		return "", classify(err)
	}
	t.trees[rev] = fingerprint(files)
	return t.trees[rev], nil
}

func showParams(vals map[string]any, keys []string) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, vals[k]))
	}
	return strings.Join(parts, ",")
}

func joinShow(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

// sortForRollout orders instances by tenant/name, or by the ordinal that ends the name
// (web-0, web-1, …, web-10), as a StatefulSet orders pods; names without one go last.
func sortForRollout(in []contract.ListedInstance, order string) {
	slices.SortStableFunc(in, func(x, y contract.ListedInstance) int {
		if order == contract.OrderOrdinal {
			ox, okx := ordinal(x.Ref.Name)
			oy, oky := ordinal(y.Ref.Name)
			switch {
			case okx && !oky:
				return -1
			case !okx && oky:
				return 1
			case okx && oky && ox != oy:
				return ox - oy
			}
		}
		return strings.Compare(x.Ref.String(), y.Ref.String())
	})
}

// ordinal is the number after the name's last dash.
func ordinal(name string) (int, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return 0, false
	}
	n := 0
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' || n > 1e8 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// errorText is an error's own message, without Temporal's wrapping.
func errorText(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Message()
	}
	return err.Error()
}
