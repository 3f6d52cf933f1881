package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	sdkclient "go.temporal.io/sdk/client"
)

// timeline writes the events of a run from its last Update accepted on (the last operation),
// with the children it started and the adapter calls (spans) made meanwhile, each with its offset
// in ms, so an update's orchestration can be read event by event: which round trip, workflow task
// or work outside the adapters took the time.
func timeline(ctx context.Context, c sdkclient.Client, w io.Writer, id string, spans []span) error {
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
	type line struct {
		at   time.Time
		text string
	}
	var lines []line
	add := func(who string, evs []*historypb.HistoryEvent) {
		for _, ev := range evs {
			lines = append(lines, line{ev.GetEventTime().AsTime(), fmt.Sprintf("%-8s %s %s", who,
				strings.TrimPrefix(ev.GetEventType().String(), "EVENT_TYPE_"), ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName())})
		}
	}
	add("instance", evs)
	for _, ev := range evs {
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			child, err := events(ctx, c, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId())
			if err != nil {
				return err
			}
			add("pipeline", child)
		}
	}
	for _, s := range spans {
		if !s.start.Before(t0) {
			lines = append(lines, line{s.start, fmt.Sprintf("%-8s %s %.1f ms", "adapter", s.call, float64(s.end.Sub(s.start))/float64(time.Millisecond))})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at.Before(lines[j].at) })
	for _, l := range lines {
		fmt.Fprintf(w, "%7.1f %s\n", float64(l.at.Sub(t0))/float64(time.Millisecond), l.text)
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
