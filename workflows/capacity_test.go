package workflows_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/workflows"
)

// budgetSim plays the pipelines of one capacity budget: it asks for slots, records each grant
// (from the acquire update or the semaphore's signal), and checks the budget is never exceeded.
type budgetSim struct {
	t      *testing.T
	env    *testsuite.TestWorkflowEnvironment
	slots  int
	mu     sync.Mutex
	held   map[string]bool
	order  []string // holders in the order they were granted
	places map[string]contract.CapacityPlace
	most   int
	closed []string          // pipelines that closed without releasing
	tenant map[string]string // the tenant of a holder, "" when not set
}

func newBudgetSim(t *testing.T, slots int) *budgetSim {
	var s testsuite.WorkflowTestSuite
	b := &budgetSim{t: t, env: s.NewTestWorkflowEnvironment(), slots: slots, held: map[string]bool{}, places: map[string]contract.CapacityPlace{}}
	b.env.RegisterWorkflowWithOptions(workflows.CapacityWorkflow, workflow.RegisterOptions{Name: contract.CapacityWorkflowName})
	b.env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, contract.SignalCapacityGranted, "aws-prod").Return(
		func(_, workflowID, _, _ string, _ any) error {
			b.grant(workflowID)
			return nil
		})
	b.env.RegisterActivityWithOptions(func(_ context.Context, hs []contract.CapacityHolder) ([]string, error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		var out []string
		for _, h := range hs {
			for _, c := range b.closed {
				if c == h.WorkflowID {
					out = append(out, c)
				}
			}
		}
		return out, nil
	}, activity.RegisterOptions{Name: contract.ActCapacityClosed})
	return b
}

func (b *budgetSim) grant(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held[id] {
		b.t.Errorf("%s granted twice", id)
	}
	b.held[id] = true
	b.order = append(b.order, id)
	b.most = max(b.most, len(b.held))
}

// acquire asks for a slot for id at delay.
func (b *budgetSim) acquire(delay time.Duration, id string, priority int) {
	b.env.RegisterDelayedCallback(func() {
		req := contract.CapacityRequest{Budget: "aws-prod", Slots: b.slots, Holder: contract.CapacityHolder{WorkflowID: id, RunID: "r", Priority: priority, Tenant: b.tenant[id]}}
		b.env.UpdateWorkflow(contract.UpdateCapacityAcquire, "acquire-"+id, &placeCallbacks{b: b, id: id}, req)
	}, delay)
}

// release gives id's slot back at delay.
func (b *budgetSim) release(delay time.Duration, id string) {
	b.env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		delete(b.held, id)
		b.mu.Unlock()
		b.env.SignalWorkflow(contract.SignalCapacityRelease, id)
	}, delay)
}

func (b *budgetSim) run(until time.Duration) {
	b.env.RegisterDelayedCallback(func() { b.env.CancelWorkflow() }, until)
	b.env.ExecuteWorkflow(contract.CapacityWorkflowName, contract.CapacityState{Budget: "aws-prod", Slots: b.slots, Check: 10 * time.Second})
}

type placeCallbacks struct {
	b  *budgetSim
	id string
}

func (u *placeCallbacks) Accept()          {}
func (u *placeCallbacks) Reject(err error) { u.b.t.Errorf("acquire rejected: %v", err) }
func (u *placeCallbacks) Complete(v any, err error) {
	require.NoError(u.b.t, err)
	p := v.(contract.CapacityPlace)
	u.b.mu.Lock()
	u.b.places[u.id] = p
	u.b.mu.Unlock()
	if p.Granted {
		u.b.grant(u.id)
	}
}

// Slots go first come, first served, a person's request (priority 1) ahead of a rollout's; each
// queued request learns how many are in use and ahead of it; no more than the slots are ever held.
func TestCapacityGrantsByPriorityThenArrival(t *testing.T) {
	b := newBudgetSim(t, 2)
	for i, id := range []string{"p1", "p2", "p3", "p4"} {
		b.acquire(time.Duration(i+1)*time.Second, id, contract.PriorityRollout)
	}
	b.acquire(5*time.Second, "person", contract.PriorityPerson)
	b.release(10*time.Second, "p1")
	b.release(11*time.Second, "p2")
	b.release(12*time.Second, "person")
	b.release(13*time.Second, "p3")
	b.run(time.Minute)

	require.Equal(t, []string{"p1", "p2", "person", "p3", "p4"}, b.order)
	require.Equal(t, 2, b.most)
	require.Equal(t, contract.CapacityPlace{InUse: 2, Slots: 2, Ahead: 1}, b.places["p4"])
	require.Equal(t, contract.CapacityPlace{InUse: 2, Slots: 2, Ahead: 0}, b.places["person"], "a person's request goes ahead of the rollout's")
}

// Within a priority the tenants queued take turns: acme's three deploys queued first do not hold
// other's one behind them all (issue: one tenant starving the others at a budget).
func TestCapacityTenantsTakeTurns(t *testing.T) {
	b := newBudgetSim(t, 1)
	b.tenant = map[string]string{"a1": "acme", "a2": "acme", "a3": "acme", "a4": "acme", "o1": "other"}
	for i, id := range []string{"a1", "a2", "a3", "a4", "o1"} {
		b.acquire(time.Duration(i+1)*time.Second, id, contract.PriorityPerson)
	}
	for i, id := range []string{"a1", "a2", "o1", "a3"} {
		b.release(time.Duration(10+i)*time.Second, id)
	}
	b.run(time.Minute)

	require.Equal(t, []string{"a1", "a2", "o1", "a3", "a4"}, b.order)
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 1}, b.places["o1"], "other's deploy waits behind one of acme's, not all three")
}

// A pipeline that closes without releasing (terminated) gives its slot back within the check.
func TestCapacityTakesBackTheSlotOfAClosedPipeline(t *testing.T) {
	b := newBudgetSim(t, 1)
	b.acquire(time.Second, "killed", 0)
	b.acquire(2*time.Second, "next", 0)
	b.env.RegisterDelayedCallback(func() {
		b.mu.Lock()
		b.closed = append(b.closed, "killed")
		delete(b.held, "killed")
		b.mu.Unlock()
	}, 3*time.Second)
	b.run(time.Minute)
	require.Equal(t, []string{"killed", "next"}, b.order)
}

// Asking again for a slot already held or queued (a retried activity) takes no second place.
func TestCapacityAcquireAgainChangesNothing(t *testing.T) {
	b := newBudgetSim(t, 1)
	b.acquire(time.Second, "a", 0)
	b.acquire(2*time.Second, "b", 0)
	b.env.RegisterDelayedCallback(func() {
		req := contract.CapacityRequest{Budget: "aws-prod", Holder: contract.CapacityHolder{WorkflowID: "b", RunID: "r"}}
		b.env.UpdateWorkflow(contract.UpdateCapacityAcquire, "again-b", &placeCallbacks{b: b, id: "b-again"}, req)
	}, 3*time.Second)
	b.acquire(4*time.Second, "c", 0)
	b.run(time.Minute)
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 0}, b.places["b-again"])
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 1}, b.places["c"])
}

// Under many pipelines asking and releasing, the budget is never exceeded and every one is served.
func TestCapacityIsNeverExceeded(t *testing.T) {
	b := newBudgetSim(t, 3)
	const n = 20
	for i := range n {
		id := fmt.Sprintf("p%02d", i)
		b.acquire(time.Duration(i)*time.Second/2+time.Second, id, 1+i%5)
	}
	// Each holder releases 7s after it was granted.
	done := map[string]bool{}
	var tick func()
	tick = func() {
		b.mu.Lock()
		var free []string
		for _, id := range b.order {
			if b.held[id] && !done[id] {
				done[id] = true
				free = append(free, id)
			}
		}
		b.mu.Unlock()
		for _, id := range free {
			b.release(7*time.Second, id)
		}
		if len(done) < n {
			b.env.RegisterDelayedCallback(tick, time.Second)
		}
	}
	b.env.RegisterDelayedCallback(tick, time.Second)
	b.run(5 * time.Minute)
	require.Len(t, b.order, n)
	require.Equal(t, 3, b.most)
}

// The capacity query answers a waiter's place as the queue moves, and the budget's counts for "".
func TestCapacityQueryAnswersThePlaceNow(t *testing.T) {
	b := newBudgetSim(t, 1)
	for i, id := range []string{"a", "b", "c"} {
		b.acquire(time.Duration(i+1)*time.Second, id, 0)
	}
	query := func(id string) (p contract.CapacityPlace) {
		v, err := b.env.QueryWorkflow(contract.QueryCapacity, id)
		require.NoError(t, err)
		require.NoError(t, v.Get(&p))
		return p
	}
	var before, after, use, held contract.CapacityPlace
	b.env.RegisterDelayedCallback(func() { before, use = query("c"), query("") }, 4*time.Second)
	b.release(5*time.Second, "a")
	b.env.RegisterDelayedCallback(func() { after, held = query("c"), query("b") }, 6*time.Second)
	b.run(time.Minute)
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 1}, before)
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 2}, use, "counts: one in use, two waiting")
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 0}, after, "c is next once a released")
	require.True(t, held.Granted)
}
