package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/notify"
)

// Notifier is the worker's notification sinks (SLIPWAY_NOTIFY_FILE) and how it reaches them.
type Notifier struct {
	Config *notify.Config
	Sender *notify.Sender
}

// MatchSinks names the configured sinks that want ev; none when nothing is configured.
func (a *Activities) MatchSinks(ctx context.Context, ev notify.Event) ([]string, error) {
	if a.Notify == nil || a.Notify.Config == nil {
		return nil, nil
	}
	var names []string
	for _, s := range a.Notify.Config.Match(ev) {
		names = append(names, s.Name)
	}
	return names, nil
}

// DeliverEvent makes one attempt to deliver an event to one sink; Temporal retries transient
// failures, and a sink's permanent refusal fails at once. The event ID rides along, so a sink
// that got an earlier attempt can tell the retry apart.
func (a *Activities) DeliverEvent(ctx context.Context, in contract.DeliverInput) error {
	if a.Notify == nil || a.Notify.Config == nil {
		return temporal.NewNonRetryableApplicationError("this worker has no notification sinks (SLIPWAY_NOTIFY_FILE)", contract.ErrNotifyRefused, nil)
	}
	sink, ok := a.Notify.Config.Sink(in.Sink)
	if !ok {
		return temporal.NewNonRetryableApplicationError("no sink "+in.Sink+" in this worker's SLIPWAY_NOTIFY_FILE", contract.ErrNotifyRefused, nil)
	}
	err := a.Notify.Sender.Deliver(ctx, sink, in.Event)
	if err != nil && notify.IsPermanent(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrNotifyRefused, nil)
	}
	return err
}
