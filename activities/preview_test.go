package activities

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// planner is an Instances whose instances plan what they are sent, or are busy.
type planner struct {
	Instances
	busy map[string]bool
	sent map[string]string
}

func (p *planner) PlanConfig(_ context.Context, ref contract.Ref, configYAML, _, _ string) (contract.OperationResult, error) {
	if p.busy[ref.Name] {
		return contract.OperationResult{}, &RefusedError{Err: assert.AnError, Busy: true}
	}
	p.sent[ref.String()] = configYAML
	plan := contract.PlanSummary{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "aws_db_instance.main[0]", Type: "aws_db_instance", Actions: []string{"create", "delete"},
		Attributes: []contract.AttributeChange{{Path: "engine", Before: `"postgres"`, After: `"aurora"`}}}}}
	return contract.OperationResult{Result: "succeeded", Plan: &plan, Diff: "--- a\n+++ b\n"}, nil
}

// An instance plans its file with only the stack: line re-pinned, its comments kept; the plan's
// fingerprint flags the stack's stateful resource; one at the release, or busy, is reported.
func TestPreviewInstancePlansTheRepinnedFile(t *testing.T) {
	ctx := context.Background()
	inst := "# acme's database\nstack: web@1.4.0  # pinned\nparameters:\n  greeting: hi\n"
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml":            []byte("parameters:\n  - {name: greeting, type: string, default: hi}\nstateful: [aws_db_instance]\n"),
		"instances/acme/db/instance.yaml":   []byte(inst),
		"instances/acme/new/instance.yaml":  []byte("stack: web@1.5.0\n"),
		"instances/acme/busy/instance.yaml": []byte("stack: web\n"),
	})
	require.NoError(t, err)
	p := &planner{busy: map[string]bool{"busy": true}, sent: map[string]string{}}
	a := &Activities{Forge: f, Instances: p}
	cutReleases(t, a, "web", "1.4.0", "1.5.0")
	spec := contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0"}
	preview := func(name string) contract.PreviewInstance {
		out, err := a.PreviewInstance(ctx, contract.PreviewInstanceInput{Spec: spec, Ref: contract.Ref{Tenant: "acme", Name: name}, Preview: "stack-preview/p"})
		require.NoError(t, err)
		return out
	}
	db := preview("db")
	require.Equal(t, contract.PreviewPlanned, db.Outcome, db.Message)
	assert.Equal(t, "1.4.0", db.From)
	assert.Equal(t, "# acme's database\nstack: web@1.5.0  # pinned\nparameters:\n  greeting: hi\n", p.sent["acme/db"])
	assert.Equal(t, "replace aws_db_instance.main (stateful!)", db.Fingerprint.Summary)
	assert.Equal(t, []string{"aws_db_instance.main"}, db.Fingerprint.Stateful)
	assert.Equal(t, []string{"engine"}, db.Fingerprint.Entries[0].Attributes)
	assert.Nil(t, db.Plan.Resources[0].Attributes, "no values in the preview's history")

	assert.Equal(t, contract.PreviewSkipped, preview("new").Outcome, "runs 1.5.0 already")
	assert.Equal(t, contract.PreviewBusy, preview("busy").Outcome)
	assert.Equal(t, contract.PreviewSkipped, preview("gone").Outcome, "no config on main")
}

// A sample takes the tenants in turn, so a small sample still sees each of them.
func TestPreviewSampleSpreadsOverTenants(t *testing.T) {
	var all []contract.PreviewInstance
	var cands []int
	for i, ref := range []string{"a/1", "a/2", "a/3", "a/4", "b/1", "c/1", "c/2"} {
		r, _ := contract.ParseRef(ref)
		all = append(all, contract.PreviewInstance{Ref: r})
		cands = append(cands, i)
	}
	assert.Equal(t, map[int]bool{0: true, 4: true, 5: true, 1: true}, sample(all, cands, 4))
	assert.Len(t, sample(all, cands, 0), 7, "no sample: all")
}

// A rollout to a release re-pins each instance's stack: line; one that runs a newer release is
// refused, naming --to and --allow-downgrade, unless downgrades are allowed; an undo's pins move
// each instance to its own release and skip the ones the undone rollout did not change.
func TestRolloutToAReleaseRepinsAndRefusesADowngrade(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml":            []byte("parameters:\n  - {name: greeting, type: string, default: hi}\n"),
		"instances/acme/web/instance.yaml":  []byte("stack: web@1.4.0\n"),
		"instances/beta/web/instance.yaml":  []byte("stack: web@1.10.0\n"),
		"instances/gamma/web/instance.yaml": []byte("stack: web@1.5.0\n"),
	})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	cutReleases(t, a, "web", "1.3.0", "1.4.0", "1.5.0", "1.10.0")
	head, err := f.Head(ctx)
	require.NoError(t, err)
	// The action list as PlanRollout makes it, outside an activity.
	planRollout := func(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
		var plan contract.RolloutPlan
		tgt, err := a.rolloutTarget(ctx, spec, head)
		if err != nil {
			return plan, err
		}
		for _, r := range []string{"acme/web", "beta/web", "gamma/web"} {
			ref, _ := contract.ParseRef(r)
			act, err := a.rolloutAction(ctx, tgt, contract.ListedInstance{Ref: ref, State: "Deployed", Ready: "True"})
			if err != nil {
				return plan, err
			}
			plan.Actions = append(plan.Actions, act)
		}
		return plan, nil
	}
	_, err = planRollout(ctx, contract.RolloutSpec{Stack: "web", To: "1.5.0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--to 1.5.0: older than the release beta/web runs (1.10.0); add --allow-downgrade")

	plan, err := planRollout(ctx, contract.RolloutSpec{Stack: "web", To: "1.5.0", AllowDowngrade: true})
	require.NoError(t, err)
	require.Len(t, plan.Actions, 3)
	assert.Equal(t, contract.ActionUpdate, plan.Actions[0].Action)
	assert.Equal(t, "stack=web@1.4.0", plan.Actions[0].Current)
	assert.Equal(t, "stack=web@1.5.0", plan.Actions[0].Desired)
	assert.Equal(t, contract.ActionUpdate, plan.Actions[1].Action, "the allowed downgrade")
	assert.Equal(t, contract.ReasonAtTarget, plan.Actions[2].Reason)

	undo := contract.RolloutSpec{Stack: "web", Pins: map[string]string{"acme/web": "1.3.0"}, Undoes: "r-1", AllowDowngrade: true}
	plan, err = planRollout(ctx, undo)
	require.NoError(t, err)
	assert.Equal(t, "stack=web@1.3.0", plan.Actions[0].Desired)
	assert.Equal(t, "rollout r-1 did not change it", plan.Actions[1].Reason)
	assert.Equal(t, contract.ActionSkip, plan.Actions[1].Action)
}

// cutReleases records releases of stack as `slipway stack release` does, each from main's head.
func cutReleases(t *testing.T, a *Activities, stack string, versions ...string) {
	t.Helper()
	for _, v := range versions {
		_, err := a.Stack(context.Background(), contract.StackRequest{Op: contract.StackOpRelease, Stack: stack, Version: v, CutBy: "carol", ID: "cut-" + v})
		require.NoError(t, err, v)
	}
}

// lister is an Instances that lists a fixed fleet, whole or in pages whose token is the next offset.
type lister struct {
	Instances
	fleet []contract.ListedInstance
	pages []string // the tokens ListPage was asked for
	lists int      // calls of List
}

func (l *lister) List(context.Context, string, string) ([]contract.ListedInstance, error) {
	l.lists++
	return slices.Clone(l.fleet), nil
}

func (l *lister) ListPage(_ context.Context, _, _ string, size int, page []byte) ([]contract.ListedInstance, []byte, error) {
	l.pages = append(l.pages, string(page))
	from, _ := strconv.Atoi(string(page))
	to := min(from+size, len(l.fleet))
	var next []byte
	if to < len(l.fleet) {
		next = []byte(strconv.Itoa(to))
	}
	return slices.Clone(l.fleet[from:to]), next, nil
}

// A preview lists its scope a page at a time, the release checked with the first page only; a
// sample lists the whole scope, as it spreads over every tenant; the skipped ones a page names
// are bounded and the rest counted.
func TestListPreviewPageListsAPageOrTheSample(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml": []byte("parameters: []\n"),
	})
	require.NoError(t, err)
	l := &lister{}
	for i := range 700 {
		st := lifecycle.Deployed
		if i%7 == 3 {
			st = lifecycle.Archived
		}
		l.fleet = append(l.fleet, contract.ListedInstance{Ref: contract.Ref{Tenant: []string{"acme", "beta"}[i%2], Name: fmt.Sprintf("web-%03d", i)}, State: string(st)})
	}
	a := &Activities{Forge: f, Instances: l}
	cutReleases(t, a, "web", "1.5.0")
	spec := contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0"}

	first, err := a.ListPreviewPage(ctx, contract.PreviewPageInput{Spec: spec, Size: 300})
	require.NoError(t, err)
	assert.Equal(t, []byte("300"), first.Next)
	assert.Len(t, first.Skipped, 43, "the archived ones of the page")
	assert.Len(t, first.Pending, 300-43)
	assert.Equal(t, "not deployed (Archived)", first.Skipped[0].Message)
	last, err := a.ListPreviewPage(ctx, contract.PreviewPageInput{Spec: spec, Size: 300, Page: []byte("600")})
	require.NoError(t, err)
	assert.Nil(t, last.Next, "the last page")
	assert.Len(t, last.Pending, 100-14)
	assert.Equal(t, []string{"", "600"}, l.pages)
	assert.Zero(t, l.lists, "no page lists the whole scope")

	_, err = a.ListPreviewPage(ctx, contract.PreviewPageInput{Spec: contract.PreviewSpec{ID: "p", Stack: "web", To: "9.9.9"}, Size: 300})
	require.ErrorContains(t, err, "--to 9.9.9", "the first page checks the release")

	spec.Sample = 3
	sampled, err := a.ListPreviewPage(ctx, contract.PreviewPageInput{Spec: spec, Size: 300})
	require.NoError(t, err)
	assert.Equal(t, 1, l.lists, "a sample lists the whole scope")
	assert.Nil(t, sampled.Next)
	assert.Equal(t, []contract.Ref{{Tenant: "acme", Name: "web-000"}, {Tenant: "acme", Name: "web-002"}, {Tenant: "beta", Name: "web-001"}}, sampled.Pending)
	assert.Len(t, sampled.Skipped, contract.MaxPreviewNamed, "the skipped ones named are bounded")
	assert.Equal(t, 700-3-contract.MaxPreviewNamed, sampled.SkippedMore, "and the rest counted")
}
