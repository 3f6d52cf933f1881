package workflows_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/workflows"
)

// fleetSim plays a stack's instances for a rollout: each deploy it is sent ends, a second
// later, as the instance would tell the rollout — failing for the instances in fail.
type fleetSim struct {
	env    *testsuite.TestWorkflowEnvironment
	mu     sync.Mutex
	sent   []string
	byID   map[string]string // activity ID -> the instance it started
	events []notify.Event    // notifications delivered
	fail   map[string]bool
	busy   map[string]int // refuses as busy this many times
	// sentFor is whom each deploy was sent on behalf of ("" for the worker's own).
	sentFor map[string]string
}

func newRolloutEnv(t *testing.T, actions []contract.RolloutAction) (*testsuite.TestWorkflowEnvironment, *fleetSim) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	f := &fleetSim{env: env, fail: map[string]bool{}, busy: map[string]int{}, byID: map[string]string{}, sentFor: map[string]string{}}
	env.RegisterWorkflowWithOptions(workflows.RolloutWorkflow, workflow.RegisterOptions{Name: contract.RolloutWorkflowName})
	env.RegisterActivityWithOptions(func(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
		return contract.RolloutPlan{Stack: spec.Stack, Head: "abc", Actions: append([]contract.RolloutAction(nil), actions...)}, nil
	}, activity.RegisterOptions{Name: contract.ActPlanRollout})
	env.RegisterActivityWithOptions(f.deploy, activity.RegisterOptions{Name: contract.ActRolloutDeploy})
	env.RegisterWorkflowWithOptions(workflows.NotifyWorkflow, workflow.RegisterOptions{Name: contract.NotifyWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, notify.Event) ([]string, error) { return []string{"hook"}, nil },
		activity.RegisterOptions{Name: contract.ActMatchSinks})
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.DeliverInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events = append(f.events, in.Event)
		return nil
	}, activity.RegisterOptions{Name: contract.ActDeliverEvent})
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		var out contract.RolloutDeployOutput
		if info.ActivityType.Name != contract.ActRolloutDeploy || result.Get(&out) != nil || out.Outcome != contract.DeployStarted {
			return
		}
		ref := f.startedBy(info.ActivityID)
		env.RegisterDelayedCallback(func() {
			d := contract.RolloutInstanceDone{Ref: parseTestRef(ref), Result: contract.ResultSucceeded, State: "Deployed", Ready: "True"}
			if f.fail[ref] {
				d = contract.RolloutInstanceDone{Ref: parseTestRef(ref), Result: contract.ResultFailed, State: "DeploymentFailed",
					Ready: "False", Error: "at step tf-apply: boom"}
			}
			env.SignalWorkflow(contract.SignalRolloutInstance, d)
		}, time.Second)
	})
	return env, f
}

func (f *fleetSim) deploy(ctx context.Context, in contract.RolloutDeployInput) (contract.RolloutDeployOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ref := in.Ref.String()
	if f.busy[ref] > 0 {
		f.busy[ref]--
		return contract.RolloutDeployOutput{Outcome: contract.DeployBusy, Message: ref + " is busy"}, nil
	}
	f.sent = append(f.sent, ref)
	if in.OnBehalfOf != nil {
		f.sentFor[ref] = in.OnBehalfOf.Name
	}
	f.byID[activity.GetInfo(ctx).ActivityID] = ref
	return contract.RolloutDeployOutput{Outcome: contract.DeployStarted}, nil
}

func (f *fleetSim) startedBy(activityID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byID[activityID]
}

func parseTestRef(s string) contract.Ref {
	var r contract.Ref
	for i := range s {
		if s[i] == '/' {
			r.Tenant, r.Name = s[:i], s[i+1:]
		}
	}
	return r
}

func updates(n int) []contract.RolloutAction {
	var out []contract.RolloutAction
	for i := range n {
		out = append(out, contract.RolloutAction{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%d", i)},
			State: "Deployed", Action: contract.ActionUpdate, Current: "replicas=1", Desired: "replicas=2"})
	}
	return out
}

func TestRolloutRunsBatchesInOrderAndCountsReplicas(t *testing.T) {
	actions := append(updates(5), contract.RolloutAction{Ref: contract.Ref{Tenant: "acme", Name: "old"}, State: "Archived",
		Action: contract.ActionSkip, Reason: "archived"},
		contract.RolloutAction{Ref: contract.Ref{Tenant: "acme", Name: "done"}, State: "Deployed", Ready: "True",
			Action: contract.ActionSkip, Reason: contract.ReasonAtTarget})
	env, f := newRolloutEnv(t, actions)
	var seen []string
	// After the first batch (two instances, one second each), the counts show it.
	env.RegisterDelayedCallback(func() {
		st := queryRollout(t, env)
		seen = append(seen, fmt.Sprintf("%d/%d/%d", st.Ready, st.Updated, st.Total))
	}, 1500*time.Millisecond)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r1", Stack: "web", BatchSize: 2, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
	var st contract.RolloutStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, 3, st.Batches)
	inBatches(t, f.sent, []string{"acme/web-0", "acme/web-1"}, []string{"acme/web-2", "acme/web-3"}, []string{"acme/web-4"})
	require.Equal(t, []string{"3/3/6"}, seen, "batch 1's two plus the instance already at the target; the archived one is not counted")
	require.Equal(t, 6, st.Ready)
	require.Equal(t, 6, st.Updated)
	require.Equal(t, 6, st.Total)
	var ids, msgs []string
	for _, ev := range f.events {
		require.Equal(t, notify.KindRolloutBatch, ev.Kind)
		ids, msgs = append(ids, ev.ID), append(msgs, ev.Message)
	}
	require.ElementsMatch(t, []string{"rollout/r1/batch-1", "rollout/r1/batch-2", "rollout/r1/batch-3"}, ids,
		"one notification per batch end")
	require.Contains(t, msgs, "rollout r1 of stack web: batch 3 of 3 ended, ready/updated/total 6/6/6, 0 failed")
}

// A follower's read from a batch on leaves out the batches before it, never the counts: a read of
// a fleet costs what can still move.
func TestRolloutStatusFromABatchLeavesOutTheBatchesBefore(t *testing.T) {
	actions := append(updates(7), contract.RolloutAction{Ref: contract.Ref{Tenant: "acme", Name: "done"}, State: "Deployed",
		Ready: "True", Action: contract.ActionSkip, Reason: contract.ReasonAtTarget})
	env, _ := newRolloutEnv(t, actions)
	var all, from2 *contract.RolloutStatus
	env.RegisterDelayedCallback(func() {
		all = queryRollout(t, env)
		v, err := env.QueryWorkflow(contract.QueryStatus, contract.RolloutStatusFrom{FromBatch: 2})
		require.NoError(t, err)
		from2 = &contract.RolloutStatus{}
		require.NoError(t, v.Get(from2))
	}, 1500*time.Millisecond)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r5", Stack: "web", BatchSize: 2, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, all.Instances, 8, "a read without the argument holds every instance")
	require.Zero(t, all.FromBatch)
	var refs []string
	for _, in := range from2.Instances {
		refs = append(refs, in.Ref.String())
	}
	require.Equal(t, []string{"acme/web-2", "acme/web-3", "acme/web-4", "acme/web-5"}, refs,
		"batch 2, which runs, and batch 3, where a busy one would go; not batch 4, which cannot have moved")
	require.Equal(t, 2, from2.FromBatch)
	require.Equal(t, 2, from2.Batch)
	require.Equal(t, [3]int{all.Ready, all.Updated, all.Total}, [3]int{from2.Ready, from2.Updated, from2.Total}, "counts over every instance")
	require.Equal(t, 3, from2.Updated, "batch 1's two and the one at the target")
}

func TestRolloutStopsAtMaxFailuresAndResumeRetriesTheFailed(t *testing.T) {
	env, f := newRolloutEnv(t, updates(4))
	f.fail["acme/web-1"] = true
	var stopped contract.RolloutStatus
	env.RegisterDelayedCallback(func() {
		stopped = *queryRollout(t, env)
		f.fail["acme/web-1"] = false // the operator fixed it
		env.UpdateWorkflow(contract.UpdateRolloutResume, "u1", &updateCallbacks{t: t}, contract.RolloutRequest{Actor: "ann"})
	}, time.Minute)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r2", Stack: "web", BatchSize: 2, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, contract.PhaseStopped, stopped.Phase)
	require.Contains(t, stopped.Reason, "acme/web-1")
	require.Equal(t, 1, stopped.Updated, "web-0 was updated, web-1 failed, batch 2 never started")
	inBatches(t, f.sent, []string{"acme/web-0", "acme/web-1"}, []string{"acme/web-1"}, []string{"acme/web-2", "acme/web-3"})
	var st contract.RolloutStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, 4, st.Ready)
}

func TestRolloutRetriesABusyInstanceInALaterBatch(t *testing.T) {
	env, f := newRolloutEnv(t, updates(2))
	f.busy["acme/web-0"] = 1
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r3", Stack: "web", BatchSize: 2, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
	var st contract.RolloutStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, []string{"acme/web-1", "acme/web-0"}, f.sent, "never queued behind the running operation")
	require.Equal(t, 2, st.Batches, "a batch was added for it")
	require.Equal(t, 2, st.Instances[0].Batch)
	require.Equal(t, 2, st.Updated)
}

func TestRolloutPauseAfterBatchWaitsForResumeAndAbortEnds(t *testing.T) {
	env, f := newRolloutEnv(t, updates(4))
	var paused contract.RolloutStatus
	env.RegisterDelayedCallback(func() {
		paused = *queryRollout(t, env)
		env.UpdateWorkflow(contract.UpdateRolloutAbort, "u1", &updateCallbacks{t: t}, contract.RolloutRequest{Actor: "ann", Reason: "enough"})
	}, time.Hour)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r4", Stack: "web",
		BatchSize: 2, MaxFailures: 1, PauseAfter: true}})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, contract.PhasePaused, paused.Phase)
	require.Equal(t, 2, paused.Batch)
	var st contract.RolloutStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, contract.PhaseAborted, st.Phase)
	require.Equal(t, "aborted by ann: enough", st.Reason)
	require.Len(t, f.sent, 2, "batch 2 never started")
}

func TestAssignBatchesByCountAndPercent(t *testing.T) {
	acts := updates(10)
	require.Equal(t, 4, workflows.AssignBatches(contract.RolloutSpec{BatchSize: 3}, acts))
	require.Equal(t, []int{1, 1, 1, 2, 2, 2, 3, 3, 3, 4}, batchesOf(acts))
	require.Equal(t, 4, workflows.AssignBatches(contract.RolloutSpec{BatchPercent: 25}, acts), "25% of 10 rounds up to 3")
	require.Equal(t, 1, workflows.AssignBatches(contract.RolloutSpec{BatchPercent: 100}, acts))
	acts[0].Action = contract.ActionSkip
	require.Equal(t, 9, workflows.AssignBatches(contract.RolloutSpec{BatchSize: 1}, acts))
	require.Equal(t, 0, acts[0].Batch)
}

// inBatches checks the deploys went batch after batch; within a batch they run at once.
func inBatches(t *testing.T, sent []string, batches ...[]string) {
	t.Helper()
	for _, b := range batches {
		require.GreaterOrEqual(t, len(sent), len(b), "sent %v", sent)
		require.ElementsMatch(t, b, sent[:len(b)])
		sent = sent[len(b):]
	}
	require.Empty(t, sent)
}

func batchesOf(acts []contract.RolloutAction) []int {
	var out []int
	for _, a := range acts {
		out = append(out, a.Batch)
	}
	return out
}

func queryRollout(t *testing.T, env *testsuite.TestWorkflowEnvironment) *contract.RolloutStatus {
	v, err := env.QueryWorkflow(contract.QueryStatus)
	require.NoError(t, err)
	var st contract.RolloutStatus
	require.NoError(t, v.Get(&st))
	return &st
}

type updateCallbacks struct{ t *testing.T }

func (u *updateCallbacks) Accept()             {}
func (u *updateCallbacks) Reject(err error)    { u.t.Errorf("update rejected: %v", err) }
func (u *updateCallbacks) Complete(any, error) {}

// A rollout a person started sends its deploys on their behalf: each instance records that
// person as the requester, so they may not approve the deploy themselves (four eyes).
func TestRolloutDeploysOnBehalfOfItsVerifiedStarter(t *testing.T) {
	env, f := newRolloutEnv(t, updates(2))
	key, err := attest.Generate()
	require.NoError(t, err)
	k, err := attest.Parse("test", key)
	require.NoError(t, err)
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-alice", Name: "alice", Groups: []string{"tenant:acme"}, Via: "api"}
	in := contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r1", Stack: "web", BatchSize: 2, MaxFailures: 1}}
	start := time.Now().UTC().Truncate(time.Second)
	env.SetStartTime(start)
	a, err := k.Sign(alice, contract.RolloutWorkflowID("r1"), attest.KindStart, contract.RolloutWorkflowName, start, in)
	require.NoError(t, err)
	p, err := converter.GetDefaultDataConverter().ToPayload([]attest.Attestation{a})
	require.NoError(t, err)
	env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{attest.HeaderKey: p}})
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: contract.RolloutWorkflowID("r1")})
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{attest.WorkerInterceptor(k)}})
	// The simulated instances' answers carry no attestation here: look while the deploys run, then stop.
	var st *contract.RolloutStatus
	env.RegisterDelayedCallback(func() {
		st = queryRollout(t, env)
		env.CancelWorkflow()
	}, 500*time.Millisecond)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, in)
	require.NotNil(t, st)
	require.Equal(t, &alice, st.Requester, "the rollout records who started it")
	require.Equal(t, map[string]string{"acme/web-0": "alice", "acme/web-1": "alice"}, f.sentFor)
}
