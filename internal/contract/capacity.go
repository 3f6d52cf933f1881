package contract

import "time"

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
	// QueryCapacity answers the budget's use now: a CapacityPlace with Ahead the number queued.
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
