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
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

var ref = contract.Ref{Tenant: "acme", Name: "web"}

// world mocks every activity, counts calls and fails the ones a test names.
type world struct {
	t         *testing.T
	env       *testsuite.TestWorkflowEnvironment
	mu        sync.Mutex
	calls     map[string]int
	fail      map[string]int    // activity -> how many more calls fail
	failType  map[string]string // activity -> the error type its failures have (default TerraformError)
	leftovers []contract.Leftover
	unlocked  []contract.UnlockInput
	claims    []contract.NamesInput   // ClaimNames calls
	releases  []contract.NamesInput   // ReleaseNames calls
	takenBy   string                  // when set, ClaimNames finds the namespace held by this instance
	refs      map[string]contract.Ref // the ref each activity last got
	// deployed, when set, is what DeployApp reports instead of deployer none's Pending app.
	deployed *contract.AppStatus
	// live is what ObserveApp reads from the deployer.
	live contract.AppStatus
	// renders are the RecordRender and VerifyRender calls; changed, when set, is what the next
	// VerifyRender finds changed on main.
	records  []contract.RecordRenderInput
	verifies []contract.VerifyRenderInput
	changed  *contract.RenderChange
	inspects []contract.LeftoverInput
	// outputsMR, when set, is the merge RenderOutputs reports; outputs are its calls.
	outputsMR *forge.MergeRequest
	outputs   []contract.RenderOutputsInput
	// applyOutputs are the terraform outputs TerraformApply reports.
	applyOutputs map[string]string
	// state, when set, is the state the instance's run starts from (as a continued run's).
	state *contract.InstanceState
	// dependsOn are the dependencies ValidateConfig finds in the config.
	dependsOn []string
	// capacity, when set, is the stack's schema.capacity ValidateConfig and ResolveRevision report.
	capacity *contract.Capacity
}

// controls are the stack's controls the validation reports: nil unless the stack names a capacity.
func (w *world) controls() *contract.Controls {
	if w.capacity == nil {
		return nil
	}
	return &contract.Controls{Capacity: w.capacity}
}

func newWorld(t *testing.T) *world {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	workerapp.RegisterWorkflows(env)
	env.RegisterActivity(&activities.Activities{})
	w := &world{t: t, env: env, calls: map[string]int{}, fail: map[string]int{}, failType: map[string]string{},
		refs: map[string]contract.Ref{}}
	w.mock()
	return w
}

// transient is the failure type that Temporal retries (a forge answering 500).
const transient = "Unavailable"

// failNext makes the next n calls of activity fail with a non-retryable error (failType transient: a retried one).
func (w *world) failNext(activity string, n int) { w.fail[activity] = n }

// rerenderMR counts the OpenMR calls of plain deploys, which open nothing while the stack is unchanged.
const rerenderMR = "OpenMergeRequest(rerender)"

func (w *world) called(activity string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[activity]
}

// saw records the ref an activity got, to check what the pipelines pass on.
func (w *world) saw(name string, r contract.Ref) {
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
		typ = contract.ErrTerraform
	}
	if n > 0 && typ == transient {
		return temporal.NewApplicationError(name+" answered 500", typ)
	}
	if n > 0 {
		return temporal.NewNonRetryableApplicationError(name+" exploded", typ, nil)
	}
	return nil
}

func (w *world) mock() {
	e := w.env
	e.OnActivity(contract.ActValidateConfig, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.ValidateInput) (contract.ValidateOutput, error) {
			if err := w.enter(contract.ActValidateConfig); err != nil {
				return contract.ValidateOutput{}, err
			}
			if strings.Contains(in.ConfigYAML, "bogus") {
				return contract.ValidateOutput{}, temporal.NewNonRetryableApplicationError(
					"invalid instance config: parameters.bogus: unknown parameter", contract.ErrInvalidConfig, nil,
					[]contract.FieldError{{Field: "parameters.bogus", Message: "unknown parameter"}})
			}
			out := contract.ValidateOutput{Stack: "example", Dependencies: w.dependsOn, Controls: w.controls()}
			if strings.Contains(in.ConfigYAML, "protected: true") {
				out.Protected = "file"
			}
			if strings.Contains(in.ConfigYAML, "expires: 72h") {
				out.Expiry = &contract.ExpiryPlan{At: w.env.Now().Add(72 * time.Hour), Action: "archive",
					Warn: []time.Duration{24 * time.Hour, time.Hour}, Max: 168 * time.Hour}
			}
			return out, nil
		})
	e.OnActivity(contract.ActOpenMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.OpenMRInput) (forge.MergeRequest, error) {
			if in.Rerender != "" {
				// A plain deploy's render of the committed config: the stack has not changed, so main holds it.
				if err := w.enter(rerenderMR); err != nil {
					return forge.MergeRequest{}, err
				}
				b := contract.BranchFor(in.Ref, in.Operation, in.OpID)
				return forge.MergeRequest{ID: b, Branch: b, NoChanges: true, BaseSHA: in.Rerender}, nil
			}
			if err := w.enter(contract.ActOpenMR); err != nil {
				return forge.MergeRequest{}, err
			}
			w.saw(contract.ActOpenMR, in.Ref)
			b := contract.BranchFor(in.Ref, in.Operation, in.OpID)
			return forge.MergeRequest{ID: b, Branch: b, State: forge.StateOpen, HeadSHA: "head-" + in.OpID, BaseSHA: "base"}, nil
		})
	e.OnActivity(contract.ActMergeMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			if err := w.enter(contract.ActMergeMR); err != nil {
				return forge.MergeRequest{}, err
			}
			mr.State, mr.MergeSHA = forge.StateMerged, "merge-"+mr.HeadSHA
			return mr, nil
		})
	e.OnActivity(contract.ActResolveRevision, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.RevisionInput) (contract.RevisionOutput, error) {
			err := w.enter(contract.ActResolveRevision)
			return contract.RevisionOutput{Revision: fmt.Sprintf("rev-%d", w.called(contract.ActMergeMR)), Exists: true, Stack: "example",
				UsesOutputs: w.outputsMR != nil, Controls: w.controls()}, err
		})
	e.OnActivity(contract.ActTerraformInit, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.TerraformInput) error { return w.enter(contract.ActTerraformInit) })
	e.OnActivity(contract.ActTerraformPlan, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.TerraformInput) (contract.PlanOutput, error) {
			w.saw(contract.ActTerraformPlan, in.Ref)
			err := w.enter(contract.ActTerraformPlan)
			return contract.PlanOutput{File: in.OpID + ".tfplan", SHA256: "sha", Summary: contract.PlanSummary{Add: 2}}, err
		})
	e.OnActivity(contract.ActTerraformApply, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.ApplyInput) (contract.InfraOutput, error) {
			err := w.enter(contract.ActTerraformApply)
			return contract.InfraOutput{Resources: []string{"terraform_data.app", "terraform_data.network"}, Serial: 1, Outputs: w.applyOutputs}, err
		})
	e.OnActivity(contract.ActTerraformDestroy, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.TerraformInput) (contract.InfraOutput, error) {
			err := w.enter(contract.ActTerraformDestroy)
			return contract.InfraOutput{Resources: []string{}, Serial: 2}, err
		})
	app := contract.AppStatus{Deployer: "none", Message: "deployer: none", Resources: []contract.Resource{
		{App: "web", Cluster: "none", Version: "v1", Kind: "ConfigMap", Name: "web", RsyncStatus: "Pending", ClusterStatus: "Unknown"},
		{App: "web", Cluster: "none", Version: "v1", Kind: "Namespace", Name: "acme-web", RsyncStatus: "Pending", ClusterStatus: "Unknown"},
	}}
	e.OnActivity(contract.ActRenderOutputs, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.RenderOutputsInput) (contract.RenderOutputsOutput, error) {
			w.mu.Lock()
			w.outputs = append(w.outputs, in)
			mr := w.outputsMR
			w.mu.Unlock()
			if mr == nil {
				return contract.RenderOutputsOutput{}, w.enter(contract.ActRenderOutputs)
			}
			return contract.RenderOutputsOutput{MR: mr, Files: []string{"manifests/app.yaml", "outputs.json"}}, w.enter(contract.ActRenderOutputs)
		})
	e.OnActivity(contract.ActDeployApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.AppInput) (contract.AppStatus, error) {
			w.saw(contract.ActDeployApp, in.Ref)
			if w.deployed != nil {
				return *w.deployed, w.enter(contract.ActDeployApp)
			}
			return app, w.enter(contract.ActDeployApp)
		})
	e.OnActivity(contract.ActRemoveApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.AppInput) (contract.AppStatus, error) {
			return contract.AppStatus{Deployer: "none"}, w.enter(contract.ActRemoveApp)
		})
	e.OnActivity(contract.ActConfigDiff, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.DiffInput) (string, error) {
			if in.ConfigYAML != "" {
				return "--- a/instance.yaml\n+++ b/instance.yaml\n-replicas: 1\n+replicas: 2\n", w.enter(contract.ActConfigDiff)
			}
			return "", w.enter(contract.ActConfigDiff)
		})
	e.OnActivity(contract.ActBootstrapSecrets, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.SecretsInput) (contract.SecretsOutput, error) {
			return contract.SecretsOutput{Names: []string{"admin_password"}}, w.enter(contract.ActBootstrapSecrets)
		})
	e.OnActivity(contract.ActForgetSecrets, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.Ref) error { return w.enter(contract.ActForgetSecrets) })
	e.OnActivity(contract.ActForceUnlock, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.UnlockInput) error {
			if err := w.enter(contract.ActForceUnlock); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.unlocked = append(w.unlocked, in)
			return nil
		})
	e.OnActivity(contract.ActClaimNames, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.NamesInput) error {
			if err := w.enter(contract.ActClaimNames); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.claims = append(w.claims, in)
			if w.takenBy != "" {
				return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: kubernetes namespace %s is already used by instance %s; choose another name",
					in.Ref, in.Names.Namespace, w.takenBy), contract.ErrNotAllowed, nil)
			}
			return nil
		})
	e.OnActivity(contract.ActReleaseNames, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.NamesInput) error {
			if err := w.enter(contract.ActReleaseNames); err != nil {
				return err
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.releases = append(w.releases, in)
			return nil
		})
	e.OnActivity(contract.ActObserveApp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ contract.ObserveAppInput) (contract.Observation, error) {
			err := w.enter(contract.ActObserveApp)
			return contract.Observation{App: w.live, Fingerprint: observe.Fingerprint(w.live), At: w.env.Now(), Observer: w.live.Observer}, err
		})
	e.OnActivity(contract.ActRecordRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.RecordRenderInput) (contract.Render, error) {
			w.mu.Lock()
			w.records = append(w.records, in)
			w.mu.Unlock()
			return contract.Render{Revision: in.Revision, Files: map[string]string{"instance.yaml": "h-" + in.Commit}}, w.enter(contract.ActRecordRender)
		})
	e.OnActivity(contract.ActVerifyRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.VerifyRenderInput) error {
			w.mu.Lock()
			w.verifies = append(w.verifies, in)
			c := w.changed
			w.changed = nil
			w.mu.Unlock()
			if c != nil {
				return temporal.NewNonRetryableApplicationError(c.Message(), contract.ErrRenderChanged, nil, *c)
			}
			return w.enter(contract.ActVerifyRender)
		})
	e.OnActivity(contract.ActCollectLeftovers, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.LeftoverInput) ([]contract.Leftover, error) {
			w.mu.Lock()
			w.inspects = append(w.inspects, in)
			w.mu.Unlock()
			_ = w.enter(contract.ActCollectLeftovers)
			out := append([]contract.Leftover{}, w.leftovers...)
			return append(out, contract.Leftover{Kind: "failed-step", ID: in.FailedStep}), nil
		})
}

// request is one update a script sends; the outcome is filled in.
type request struct {
	name   string
	arg    any
	at     time.Duration // send this long after the previous request ended
	result contract.OperationResult
	status contract.Status // the result of a refresh
	err    error           // rejection or update error
	arm    func()          // runs when this request has ended, before the next is sent
	accept func()          // runs when this request is accepted
}

func op(kind lifecycle.Operation, req contract.OperationRequest) *request {
	return &request{name: string(kind), arg: req}
}

func decision(d lifecycle.Decision, req contract.DecisionRequest) *request {
	return &request{name: string(d), arg: req}
}

// run starts the instance and sends the requests one after another; it returns
// when the workflow ends (it is cancelled after the last request unless it closed).
func (w *world) run(settings contract.Settings, reqs ...*request) {
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
		if r.at > 0 {
			d := r.at
			r.at = 0
			w.env.RegisterDelayedCallback(next, d)
			return
		}
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
	w.env.ExecuteWorkflow(contract.InstanceWorkflowName, contract.InstanceInput{Ref: ref, Settings: settings, State: w.state})
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
	case contract.OperationResult:
		r.result = res
	case contract.Status:
		r.status = res
	case interface{ Get(valuePtr ...any) error }:
		if r.name == contract.UpdateRefresh {
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

func (w *world) status(output string) contract.Status {
	v, err := w.env.QueryWorkflow(contract.QueryStatus, contract.StatusRequest{Output: output})
	require.NoError(w.t, err)
	var st contract.Status
	require.NoError(w.t, v.Get(&st))
	return st
}

const webYAML = "stack: example\nparameters:\n  greeting: hello\n"
