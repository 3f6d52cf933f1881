package workflows

import (
	"cmp"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// capacityCheck is how often a budget with holders looks for ones whose pipelines closed without
// releasing (terminated, or reset): their slots come back within it.
const capacityCheck = time.Minute

// capacityHistory bounds a semaphore's history before it continues as new.
const capacityHistory = 4000

// CapacityWorkflow is one capacity budget's semaphore (capacity/<name>): it grants its slots FIFO,
// by priority then arrival, through the acquire update, and takes a slot back when its holder
// releases it or the holder's pipeline closes. It runs until the server ends it; idle, it records nothing.
func CapacityWorkflow(ctx workflow.Context, st contract.CapacityState) error {
	s := &semaphore{st: st, wake: workflow.NewBufferedChannel(ctx, 1)}
	if err := workflow.SetUpdateHandler(ctx, contract.UpdateCapacityAcquire, s.acquire); err != nil {
		return err
	}
	// A place or counts only: a query is answered to anyone, and the holders are other tenants' pipelines.
	// Status reads a waiting step's place through it, so the queue moving costs no event.
	if err := workflow.SetQueryHandler(ctx, contract.QueryCapacity, func(id string) (contract.CapacityPlace, error) {
		if id != "" {
			return s.place(id), nil
		}
		return contract.CapacityPlace{InUse: len(s.st.Holders), Slots: s.st.Slots, Ahead: len(s.st.Queue)}, nil
	}); err != nil {
		return err
	}
	release := workflow.GetSignalChannel(ctx, contract.SignalCapacityRelease)
	for {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(release, func(c workflow.ReceiveChannel, _ bool) {
			var id string
			c.Receive(ctx, &id)
			s.release(ctx, id)
		})
		sel.AddReceive(s.wake, func(c workflow.ReceiveChannel, _ bool) {
			var woke bool
			c.Receive(ctx, &woke)
		})
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		tctx, cancel := workflow.WithCancel(ctx)
		if len(s.st.Holders) > 0 {
			// Only a budget in use watches its holders: an idle one waits on nothing but requests.
			sel.AddFuture(workflow.NewTimer(tctx, cmp.Or(s.st.Check, capacityCheck)), func(f workflow.Future) {
				if f.Get(ctx, nil) == nil {
					s.reap(ctx)
				}
			})
		}
		sel.Select(ctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err() // an operator cancelled the budget: its holders keep their slots until they end
		}
		info := workflow.GetInfo(ctx)
		if info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > capacityHistory {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			for {
				var id string
				if !release.ReceiveAsync(&id) {
					break
				}
				s.release(ctx, id)
			}
			return workflow.NewContinueAsNewError(ctx, CapacityWorkflow, s.st)
		}
	}
}

// semaphore is a CapacityWorkflow's state and the moves on it.
type semaphore struct {
	st   contract.CapacityState
	wake workflow.Channel
}

// acquire queues h (or finds it queued or holding), admits what fits, and answers with h's place.
func (s *semaphore) acquire(ctx workflow.Context, req contract.CapacityRequest) (contract.CapacityPlace, error) {
	if req.Slots > 0 {
		s.st.Slots = req.Slots
	}
	h := req.Holder
	if !s.holds(h.WorkflowID) && s.queued(h.WorkflowID) < 0 {
		s.st.Seq++
		h.Seq = s.st.Seq
		h.Priority = cmp.Or(h.Priority, contract.PriorityRollout)
		s.st.Queue = fairQueue(append(s.st.Queue, h))
	}
	s.admit(ctx, h.WorkflowID)
	s.wake.SendAsync(true)
	return s.place(h.WorkflowID), nil
}

// fairQueue orders q by priority, then by each tenant's turn (its 1st queued, then its 2nd, …),
// then by arrival: within a priority the tenants take turns, so one tenant's thousand deploys
// cannot hold another's one behind them all. Holders queued before the tenant was recorded all
// have "", whose turns follow arrival: their order, and so the replay of their histories, is unchanged.
func fairQueue(q []contract.CapacityHolder) []contract.CapacityHolder {
	slices.SortStableFunc(q, func(a, b contract.CapacityHolder) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.Seq, b.Seq))
	})
	type key struct {
		priority int
		tenant   string
	}
	seen := map[key]int{}
	turn := make(map[string]int, len(q))
	for _, h := range q {
		k := key{h.Priority, h.Tenant}
		turn[h.WorkflowID] = seen[k]
		seen[k]++
	}
	slices.SortStableFunc(q, func(a, b contract.CapacityHolder) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(turn[a.WorkflowID], turn[b.WorkflowID]), cmp.Compare(a.Seq, b.Seq))
	})
	return q
}

// place is the holder id's place now.
func (s *semaphore) place(id string) contract.CapacityPlace {
	p := contract.CapacityPlace{InUse: len(s.st.Holders), Slots: s.st.Slots}
	if s.holds(id) {
		p.Granted = true
	} else {
		p.Ahead = max(s.queued(id), 0)
	}
	return p
}

func (s *semaphore) holds(id string) bool {
	return slices.ContainsFunc(s.st.Holders, func(h contract.CapacityHolder) bool { return h.WorkflowID == id })
}

func (s *semaphore) queued(id string) int {
	return slices.IndexFunc(s.st.Queue, func(h contract.CapacityHolder) bool { return h.WorkflowID == id })
}

// admit grants free slots to the head of the queue, telling each holder but asking (whose update answers it).
func (s *semaphore) admit(ctx workflow.Context, asking string) {
	for len(s.st.Queue) > 0 && len(s.st.Holders) < s.st.Slots {
		h := s.st.Queue[0]
		s.st.Queue = s.st.Queue[1:]
		s.st.Holders = append(s.st.Holders, h)
		if h.WorkflowID != asking {
			// A holder that closed meanwhile fails the signal; reap takes its slot back.
			workflow.SignalExternalWorkflow(ctx, h.WorkflowID, h.RunID, contract.SignalCapacityGranted, s.st.Budget)
		}
	}
}

// release takes back id's slot, or its place in the queue, and admits the next.
func (s *semaphore) release(ctx workflow.Context, id string) {
	drop := func(h contract.CapacityHolder) bool { return h.WorkflowID == id }
	s.st.Holders = slices.DeleteFunc(s.st.Holders, drop)
	s.st.Queue = slices.DeleteFunc(s.st.Queue, drop)
	s.admit(ctx, "")
}

// reap releases the holders whose pipelines closed without releasing (a terminated run).
func (s *semaphore) reap(ctx workflow.Context) {
	var closed []string
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: shortTimeout, RetryPolicy: retryPolicy()})
	if err := workflow.ExecuteActivity(actx, contract.ActCapacityClosed, s.st.Holders).Get(ctx, &closed); err != nil {
		workflow.GetLogger(ctx).Warn("could not check the budget's holders", "budget", s.st.Budget, "error", err)
		return
	}
	for _, id := range closed {
		workflow.GetLogger(ctx).Info("slot taken back from a closed pipeline", "budget", s.st.Budget, "holder", id)
		s.release(ctx, id)
	}
}
