package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/app"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

var ref = steps.Ref{Tenant: "acme", Name: "web"}

// world mocks every activity, counts calls and fails the ones a test names.
type world struct {
	t         *testing.T
	env       *testsuite.TestWorkflowEnvironment
	mu        sync.Mutex
	calls     map[string]int
	fail      map[string]int    // activity -> how many more calls fail
	failType  map[string]string // activity -> the error type its failures have (default TerraformError)
	leftovers []steps.Leftover
	unlocked  []steps.UnlockInput
	claims    []steps.NamesInput   // ClaimNames calls
	releases  []steps.NamesInput   // ReleaseNames calls
	takenBy   string               // when set, ClaimNames finds the namespace held by this instance
	refs      map[string]steps.Ref // the ref each activity last got
	// deployed, when set, is what DeployApp reports instead of deployer none's Pending app.
	deployed *steps.AppStatus
	// live is what ObserveApp reads from the deployer.
	live steps.AppStatus
	// renders are the RecordRender and VerifyRender calls; changed, when set, is what the next
	// VerifyRender finds changed on main.
	records  []steps.RecordRenderInput
	verifies []steps.VerifyRenderInput
	changed  *steps.RenderChange
	inspects []steps.LeftoverInput
	// outputsMR, when set, is the merge RenderOutputs reports; outputs are its calls.
	outputsMR *forge.MergeRequest
	outputs   []steps.RenderOutputsInput
}

func newWorld(t *testing.T) *world {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	app.RegisterWorkflows(env)
	env.RegisterActivity(&activities.Activities{})
	w := &world{t: t, env: env, calls: map[string]int{}, fail: map[string]int{}, failType: map[string]string{},
		refs: map[string]steps.Ref{}}
	w.mock()
	return w
}

// failNext makes the next n calls of activity fail with a non-retryable error.
func (w *world) failNext(activity string, n int) { w.fail[activity] = n }

// rerenderMR counts the OpenMR calls of plain deploys, which open nothing while the stack is unchanged.
const rerenderMR = "OpenMergeRequest(rerender)"

func (w *world) called(activity string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[activity]
}

// saw records the ref an activity got, to check what the pipelines pass on.
func (w *world) saw(name string, r steps.Ref) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refs[name] = r
}

func (w *world) enter(name string) error {
	w.mu.Lock()
	w.calls[name]++
	n := w.fail[name]
	if n > 0 {
		w.fail[name] = n - 1
	}
	typ := w.failType[name]
	w.mu.Unlock()
	if typ == "" {
		typ = steps.ErrTerraform
	}
	if n > 0 {
		return temporal.NewNonRetryableApplicationError(name+" exploded", typ, nil)
	}
	return nil
}

func (w *world) mock() {
	e := w.env
	e.OnActivity(steps.ActValidateConfig, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.ValidateInput) (steps.ValidateOutput, error) {
			if err := w.enter(steps.ActValidateConfig); err != nil {
				return steps.ValidateOutput{}, err
			}
			if strings.Contains(in.ConfigYAML, "bogus") {
				return steps.ValidateOutput{}, temporal.NewNonRetryableApplicationError(
					"invalid instance config: parameters.bogus: unknown parameter", steps.ErrInvalidConfig, nil,
					[]steps.FieldError{{Field: "parameters.bogus", Message: "unknown parameter"}})
			}
			return steps.ValidateOutput{Stack: "example"}, nil
		})
	e.OnActivity(steps.ActOpenMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.OpenMRInput) (forge.MergeRequest, error) {
			if in.Rerender != "" {
				// A plain deploy's render of the committed config: the stack has not changed, so main holds it.
				if err := w.enter(rerenderMR); err != nil {
					return forge.MergeRequest{}, err
				}
				b := steps.BranchFor(in.Ref, in.Operation, in.OpID)
				return forge.MergeRequest{ID: b, Branch: b, NoChanges: true, BaseSHA: in.Rerender}, nil
			}
			if err := w.enter(steps.ActOpenMR); err != nil {
				return forge.MergeRequest{}, err
			}
			w.saw(steps.ActOpenMR, in.Ref)
			b := steps.BranchFor(in.Ref, in.Operation, in.OpID)
			return forge.MergeRequest{ID: b, Branch: b, State: forge.StateOpen, HeadSHA: "head-" + in.OpID, BaseSHA: "base"}, nil
		})
	e.OnActivity(steps.ActMergeMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			if err := w.enter(steps.ActMergeMR); err != nil {
				return forge.MergeRequest{}, err
			}
			mr.State, mr.MergeSHA = forge.StateMerged, "merge-"+mr.HeadSHA
			return mr, nil
		})
	e.OnActivity(steps.ActResolveRevision, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.RevisionInput) (steps.RevisionOutput, error) {
			err := w.enter(steps.ActResolveRevision)
			return steps.RevisionOutput{Revision: fmt.Sprintf("rev-%d", w.called(steps.ActMergeMR)), Exists: true, Stack: "example",
				UsesOutputs: w.outputsMR != nil}, err
		})
	e.OnActivity(steps.ActTerraformInit, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.TerraformInput) error { return w.enter(steps.ActTerraformInit) })
	e.OnActivity(steps.ActTerraformPlan, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.TerraformInput) (steps.PlanOutput, error) {
			w.saw(steps.ActTerraformPlan, in.Ref)
			err := w.enter(steps.ActTerraformPlan)
			return steps.PlanOutput{File: in.OpID + ".tfplan", SHA256: "sha", Summary: steps.PlanSummary{Add: 2}}, err
		})
	e.OnActivity(steps.ActTerraformApply, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.ApplyInput) (steps.InfraOutput, error) {
			err := w.enter(steps.ActTerraformApply)
			return steps.InfraOutput{Resources: []string{"terraform_data.app", "terraform_data.network"}, Serial: 1}, err
		})
	e.OnActivity(steps.ActTerraformDestroy, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.TerraformInput) (steps.InfraOutput, error) {
			err := w.enter(steps.ActTerraformDestroy)
			return steps.InfraOutput{Resources: []string{}, Serial: 2}, err
		})
	app := steps.AppStatus{Deployer: "none", Message: "deployer: none", Resources: []steps.Resource{
		{App: "web", Cluster: "none", Version: "v1", Kind: "ConfigMap", Name: "web", RsyncStatus: "Pending", ClusterStatus: "Unknown"},
		{App: "web", Cluster: "none", Version: "v1", Kind: "Namespace", Name: "acme-web", RsyncStatus: "Pending", ClusterStatus: "Unknown"},
	}}
	e.OnActivity(steps.ActRenderOutputs, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.RenderOutputsInput) (steps.RenderOutputsOutput, error) {
			w.mu.Lock()
			w.outputs = append(w.outputs, in)
			mr := w.outputsMR
			w.mu.Unlock()
			if mr == nil {
				return steps.RenderOutputsOutput{}, w.enter(steps.ActRenderOutputs)
			}
			return steps.RenderOutputsOutput{MR: mr, Files: []string{"manifests/app.yaml", "outputs.json"}}, w.enter(steps.ActRenderOutputs)
		})
	e.OnActivity(steps.ActDeployApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.AppInput) (steps.AppStatus, error) {
			w.saw(steps.ActDeployApp, in.Ref)
			if w.deployed != nil {
				return *w.deployed, w.enter(steps.ActDeployApp)
			}
			return app, w.enter(steps.ActDeployApp)
		})
	e.OnActivity(steps.ActRemoveApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.AppInput) (steps.AppStatus, error) {
			return steps.AppStatus{Deployer: "none"}, w.enter(steps.ActRemoveApp)
		})
	e.OnActivity(steps.ActConfigDiff, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.DiffInput) (string, error) {
			if in.ConfigYAML != "" {
				return "--- a/instance.yaml\n+++ b/instance.yaml\n-replicas: 1\n+replicas: 2\n", w.enter(steps.ActConfigDiff)
			}
			return "", w.enter(steps.ActConfigDiff)
		})
	e.OnActivity(steps.ActBootstrapSecrets, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.SecretsInput) (steps.SecretsOutput, error) {
			return steps.SecretsOutput{Names: []string{"admin_password"}}, w.enter(steps.ActBootstrapSecrets)
		})
	e.OnActivity(steps.ActForgetSecrets, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.Ref) error { return w.enter(steps.ActForgetSecrets) })
	e.OnActivity(steps.ActForceUnlock, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.UnlockInput) error {
			if err := w.enter(steps.ActForceUnlock); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.unlocked = append(w.unlocked, in)
			return nil
		})
	e.OnActivity(steps.ActClaimNames, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.NamesInput) error {
			if err := w.enter(steps.ActClaimNames); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.claims = append(w.claims, in)
			if w.takenBy != "" {
				return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: kubernetes namespace %s is already used by instance %s; choose another name",
					in.Ref, in.Names.Namespace, w.takenBy), steps.ErrNotAllowed, nil)
			}
			return nil
		})
	e.OnActivity(steps.ActReleaseNames, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.NamesInput) error {
			if err := w.enter(steps.ActReleaseNames); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.releases = append(w.releases, in)
			return nil
		})
	e.OnActivity(steps.ActObserveApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ steps.ObserveAppInput) (steps.Observation, error) {
			err := w.enter(steps.ActObserveApp)
			return steps.Observation{App: w.live, Fingerprint: observe.Fingerprint(w.live), At: w.env.Now(), Observer: w.live.Observer}, err
		})
	e.OnActivity(steps.ActRecordRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.RecordRenderInput) (steps.Render, error) {
			w.mu.Lock()
			w.records = append(w.records, in)
			w.mu.Unlock()
			return steps.Render{Revision: in.Revision, Files: map[string]string{"instance.yaml": "h-" + in.Commit}}, w.enter(steps.ActRecordRender)
		})
	e.OnActivity(steps.ActVerifyRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.VerifyRenderInput) error {
			w.mu.Lock()
			w.verifies = append(w.verifies, in)
			c := w.changed
			w.changed = nil
			w.mu.Unlock()
			if c != nil {
				return temporal.NewNonRetryableApplicationError(c.Message(), steps.ErrRenderChanged, nil, *c)
			}
			return w.enter(steps.ActVerifyRender)
		})
	e.OnActivity(steps.ActCollectLeftovers, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.LeftoverInput) ([]steps.Leftover, error) {
			w.mu.Lock()
			w.inspects = append(w.inspects, in)
			w.mu.Unlock()
			_ = w.enter(steps.ActCollectLeftovers)
			out := append([]steps.Leftover{}, w.leftovers...)
			return append(out, steps.Leftover{Kind: "failed-step", ID: in.FailedStep}), nil
		})
}

// request is one update a script sends; the outcome is filled in.
type request struct {
	name   string
	arg    any
	at     time.Duration // send this long after the previous request was sent (0: after it ended)
	result workflows.OperationResult
	status workflows.Status // the result of a refresh
	err    error            // rejection or update error
	arm    func()           // runs when this request has ended, before the next is sent
	accept func()           // runs when this request is accepted
}

func op(kind lifecycle.Operation, req workflows.OperationRequest) *request {
	return &request{name: string(kind), arg: req}
}

func decision(d lifecycle.Decision, req workflows.DecisionRequest) *request {
	return &request{name: string(d), arg: req}
}

// run starts the instance and sends the requests one after another; it returns
// when the workflow ends (it is cancelled after the last request unless it closed).
func (w *world) run(settings workflows.Settings, reqs ...*request) {
	i := 0
	var next func()
	next = func() {
		if i == len(reqs) {
			w.env.RegisterDelayedCallback(func() {
				if !w.env.IsWorkflowCompleted() {
					w.env.CancelWorkflow()
				}
			}, time.Second)
			return
		}
		r := reqs[i]
		i++
		w.env.UpdateWorkflow(r.name, fmt.Sprintf("req-%d", i), &testsuite.TestUpdateCallback{
			OnAccept: func() {
				if r.accept != nil {
					r.accept()
				}
			},
			OnReject:   func(err error) { r.err = err; w.ended(r, next) },
			OnComplete: func(v any, err error) { r.setResult(v, err); w.ended(r, next) },
		}, r.arg)
	}
	w.env.RegisterDelayedCallback(next, time.Millisecond)
	w.env.ExecuteWorkflow(workflows.InstanceWorkflowName, workflows.InstanceInput{Ref: ref, Settings: settings})
	require.True(w.t, w.env.IsWorkflowCompleted())
}

func (w *world) ended(r *request, next func()) {
	if r.arm != nil {
		r.arm()
	}
	w.env.RegisterDelayedCallback(next, time.Millisecond)
}

func (r *request) setResult(v any, err error) {
	r.err = err
	switch res := v.(type) {
	case workflows.OperationResult:
		r.result = res
	case workflows.Status:
		r.status = res
	case interface{ Get(valuePtr ...any) error }:
		if r.name == workflows.UpdateRefresh {
			_ = res.Get(&r.status)
			return
		}
		_ = res.Get(&r.result)
	}
}

// send sends r right away, outside the script's sequence.
func (w *world) send(r *request, id string) {
	w.env.UpdateWorkflow(r.name, id, &testsuite.TestUpdateCallback{
		OnAccept:   func() {},
		OnReject:   func(err error) { r.err = err },
		OnComplete: func(v any, err error) { r.setResult(v, err) },
	}, r.arg)
}

func (w *world) status(output string) workflows.Status {
	v, err := w.env.QueryWorkflow(workflows.QueryStatus, workflows.StatusRequest{Output: output})
	require.NoError(w.t, err)
	var st workflows.Status
	require.NoError(w.t, v.Get(&st))
	return st
}

const webYAML = "stack: example\nparameters:\n  greeting: hello\n"
