package contract

import "github.com/slipway-dev/slipway/internal/notify"

// Notification activities.
const (
	ActMatchSinks   = "MatchSinks"
	ActDeliverEvent = "DeliverEvent"
	// ErrNotifyRefused is a sink's permanent refusal (a 4xx, bad input): retrying cannot help.
	ErrNotifyRefused = "NotifyRefused"
)

// DeliverInput sends one event to one configured sink, named (its secret stays on the worker).
type DeliverInput struct {
	Sink  string       `json:"sink"`
	Event notify.Event `json:"event"`
}

// SinkDelivery is what became of one event at one sink: the notification's record.
type SinkDelivery struct {
	Sink      string `json:"sink"`
	Delivered bool   `json:"delivered"`
	Error     string `json:"error,omitempty"`
}

// NotifyWorkflowName is the workflow that delivers one notification (ID notify/<event ID>).
const NotifyWorkflowName = "NotifyWorkflow"

// NotifyRequest is one event and the sinks that want it.
type NotifyRequest struct {
	Event notify.Event `json:"event"`
	Sinks []string     `json:"sinks"`
}
