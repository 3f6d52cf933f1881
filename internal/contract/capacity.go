package contract

import (
	"fmt"
	"strings"
	"time"
)

// CapacityWorkflowName is the semaphore of one capacity budget (docs/capacity.md).
const CapacityWorkflowName = "CapacityWorkflow"

// Capacity budgets' activities, update and signals.
const (
	ActCapacityAcquire = "CapacityAcquire"
	ActCapacityClosed  = "CapacityClosed"
	// UpdateCapacityAcquire queues a holder for a slot; it answers at once with its place.
	UpdateCapacityAcquire = "acquire"
	// SignalCapacityRelease gives a slot (or a place in the queue) back; it carries the holder's workflow ID.
	SignalCapacityRelease = "capacity-release"
	// SignalCapacityGranted tells a queued holder its slot is granted; it carries the budget's name.
	SignalCapacityGranted = "capacity-granted"
	// QueryCapacity answers a holder's place now (its argument is the holder's workflow ID), or
	// with "" the budget's use: a CapacityPlace with Ahead the number queued.
	QueryCapacity = "capacity"
)

// CapacityWorkflowID is the budget's semaphore: one workflow per budget, shared by every worker.
func CapacityWorkflowID(budget string) string { return "capacity/" + budget }

// Capacity names the budgets a stack's steps draw on (schema.capacity); "" draws on none.
type Capacity struct {
	Apply   string `json:"apply,omitempty"`
	Destroy string `json:"destroy,omitempty"`
}

// CapacityHolder is a pipeline run that holds or waits for a slot.
type CapacityHolder struct {
	WorkflowID string `json:"workflowID"`
	RunID      string `json:"runID"`
	// Priority orders the queue (1 first, as temporal.Priority's key; 0 is the default, 3); Seq breaks ties by arrival.
	Priority int   `json:"priority,omitempty"`
	Seq      int64 `json:"seq,omitempty"`
	// Tenant takes turns with the other tenants queued at the same priority, so one tenant's many
	// pipelines cannot starve another's ("" for holders queued before it was recorded).
	Tenant string `json:"tenant,omitempty"`
}

// CapacityRequest asks the budget's semaphore for a slot for Holder; Slots is the budget's size
// in the platform's file now (a changed file takes effect at the next request).
type CapacityRequest struct {
	Budget string         `json:"budget"`
	Slots  int            `json:"slots,omitempty"`
	Holder CapacityHolder `json:"holder"`
}

// CapacityPlace is the holder's place when it asked: granted, or Ahead others before it.
type CapacityPlace struct {
	Granted bool `json:"granted"`
	InUse   int  `json:"inUse"`
	Slots   int  `json:"slots"`
	Ahead   int  `json:"ahead"`
}

// CapacityState is the semaphore's state, carried across continue-as-new.
type CapacityState struct {
	Budget  string           `json:"budget"`
	Slots   int              `json:"slots"`
	Holders []CapacityHolder `json:"holders,omitempty"`
	Queue   []CapacityHolder `json:"queue,omitempty"`
	Seq     int64            `json:"seq,omitempty"`
	// Check is how often the semaphore looks for holders whose pipelines closed without releasing (0: a minute).
	Check time.Duration `json:"check,omitempty"`
}

// CapacityWaiting is the step's detail while it waits for a slot of budget, as status, watch
// and the UI show it.
func CapacityWaiting(budget string, p CapacityPlace) string {
	return fmt.Sprintf("%s%s (%d/%d in use, %d ahead)", capacityWaiting, budget, p.InUse, p.Slots, p.Ahead)
}

const capacityWaiting = "waiting for budget "

// CapacityWaitingFor is the budget a step's detail says it waits for; ok is false for any other detail.
func CapacityWaitingFor(detail string) (budget string, ok bool) {
	rest, ok := strings.CutPrefix(detail, capacityWaiting)
	if !ok {
		return "", false
	}
	budget, _, ok = strings.Cut(rest, " (")
	return budget, ok
}
