package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// A step that keeps failing is Retrying once the worker says so (the signal its activity
// interceptor sends at attempt 3): the condition, operation.retrying and one notification,
// however often it is told; when the step succeeds, the condition goes. A signal about another
// operation is dropped.
func TestRetryingStepIsShownAndNotifiedOnce(t *testing.T) {
	w := newWorld(t)
	w.failType[contract.ActMergeMR] = transient
	var mu sync.Mutex
	var events []notify.Event
	w.env.OnActivity(contract.ActMatchSinks, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ev notify.Event) ([]string, error) {
			if ev.Kind != notify.KindRetrying {
				return nil, nil
			}
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
			return nil, nil
		})
	retry := decision(lifecycle.DecisionRetry, contract.DecisionRequest{Actor: "alice"})
	var during contract.Status
	var details string
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: "stack: example\nparameters:\n  greeting: hi\n"})
	deploy.accept = func() {
		// MergeMR fails at once, then after 1 s, 2 s and 4 s of backoff: these land in between.
		w.env.RegisterDelayedCallback(func() {
			st := w.status("")
			tell := contract.StepRetry{Operation: st.Operation.ID, Pipeline: st.Operation.Pipeline, Activity: contract.ActMergeMR,
				ActivityID: "12", Attempt: contract.RetryingAfter, LastError: "forge answered 500", Running: true}
			w.env.SignalWorkflow(contract.SignalStepRetrying, tell)
			w.env.SignalWorkflow(contract.SignalStepRetrying, tell) // told twice: one notification
			other := tell
			other.Operation = "someone-else"
			w.env.SignalWorkflow(contract.SignalStepRetrying, other)
		}, 2*time.Second)
		w.env.RegisterDelayedCallback(func() { during, details = w.status(""), w.details() }, 2500*time.Millisecond)
		w.env.RegisterDelayedCallback(func() { w.send(retry, "retry-now") }, 2600*time.Millisecond)
	}
	var reset []contract.RetryNowInput
	w.env.OnActivity(contract.ActRetryNow, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.RetryNowInput) error {
			mu.Lock()
			defer mu.Unlock()
			reset = append(reset, in)
			return nil
		})
	provision := provisioned()
	provision[len(provision)-1].arm = func() { w.failNext(contract.ActMergeMR, 3) }
	w.run(contract.Settings{}, append(provision, deploy)...)

	require.Equal(t, lifecycle.Deployed, deploy.result.State, "the step succeeded on its fourth attempt")
	require.NotNil(t, during.Operation)
	r := during.Operation.Retrying
	require.NotNil(t, r, "operation.retrying while the step is Retrying")
	require.Equal(t, contract.MergeMR, r.Step)
	require.Equal(t, contract.RetryingAfter, r.Attempt)
	require.Equal(t, "forge answered 500", r.LastError)
	c := condition(during, contract.CondRetrying)
	require.NotNil(t, c, "the Retrying condition: %+v", during.Conditions)
	require.Equal(t, lifecycle.ConditionTrue, c.Status)
	require.Contains(t, c.Message, "merge-mr")
	require.Contains(t, details, "Retrying step merge-mr (attempt 3): forge answered 500")

	mu.Lock()
	require.Len(t, events, 1, "one notification per operation and step")
	require.Equal(t, contract.MergeMR, events[0].Step)
	require.Contains(t, events[0].Message, "forge answered 500")
	mu.Unlock()

	require.NoError(t, retry.err, "retry is taken while the step is Retrying")
	require.Equal(t, []contract.RetryNowInput{{Pipeline: during.Operation.Pipeline, ActivityID: "12"}}, reset,
		"the step's activity is reset: tried at once")
	require.Equal(t, lifecycle.Deployed, retry.result.State, "retry answers with the operation's end, as for a failed one")

	after := w.status("all")
	last := after.Decisions[len(after.Decisions)-1]
	require.Equal(t, contract.MergeMR, last.RetriedStep)
	require.Equal(t, lifecycle.Deploying, last.To)
	require.Nil(t, condition(after, contract.CondRetrying), "the step ended: not Retrying any more")
	require.Nil(t, after.Operation.Retrying)
}

// retry on a running operation whose step is not Retrying is refused as before: busy.
func TestRetryOfARunningStepThatIsNotRetryingIsRefused(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	retry := decision(lifecycle.DecisionRetry, contract.DecisionRequest{})
	deploy.accept = func() { w.env.RegisterDelayedCallback(func() { w.send(retry, "retry-now") }, 0) }
	w.run(contract.Settings{}, append(provisioned(), deploy)...)
	requireRejected(t, retry.err, "needs a failed operation, or a step that is Retrying")
}

func condition(st contract.Status, typ string) *lifecycle.Condition {
	for _, c := range st.Conditions {
		if c.Type == typ {
			return &c
		}
	}
	return nil
}
