package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	sdkclient "go.temporal.io/sdk/client"
)

// timeline writes the events of a run from its last Update accepted on (the last operation),
// with the children it started, each with its offset in ms, so an update's orchestration can be
// read event by event: which round trip and workflow task took the time outside the adapters.
func timeline(ctx context.Context, c sdkclient.Client, w io.Writer, id string) error {
	evs, err := events(ctx, c, id, "")
	if err != nil {
		return err
	}
	from := 0
	for i, ev := range evs {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED {
			from = i
		}
	}
	evs = evs[from:]
	t0 := evs[0].GetEventTime().AsTime()
	var child []*historypb.HistoryEvent
	for _, ev := range evs {
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			if child, err = events(ctx, c, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId()); err != nil {
				return err
			}
		}
	}
	line := func(who string, ev *historypb.HistoryEvent) {
		fmt.Fprintf(w, "%7.1f %-8s %s %s\n", float64(ev.GetEventTime().AsTime().Sub(t0))/float64(time.Millisecond), who,
			strings.TrimPrefix(ev.GetEventType().String(), "EVENT_TYPE_"), ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName())
	}
	i, j := 0, 0
	for i < len(evs) || j < len(child) {
		if j == len(child) || (i < len(evs) && !evs[i].GetEventTime().AsTime().After(child[j].GetEventTime().AsTime())) {
			line("instance", evs[i])
			i++
		} else {
			line("pipeline", child[j])
			j++
		}
	}
	return nil
}

func events(ctx context.Context, c sdkclient.Client, id, run string) ([]*historypb.HistoryEvent, error) {
	it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		out = append(out, ev)
	}
	return out, nil
}
