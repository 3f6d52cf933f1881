package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
)

// Only the server's own note on an activity cancelled before it started is set apart; any
// other payload in the clear, on that event or another, is still counted as in the clear.
func TestCountPayloadsSetsApartOnlyTheServersOwnNote(t *testing.T) {
	plainJSON := func(data string) *commonpb.Payloads {
		return &commonpb.Payloads{Payloads: []*commonpb.Payload{{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(data)}}}
	}
	cancelled := func(id int64, details *commonpb.Payloads) *historypb.HistoryEvent {
		return &historypb.HistoryEvent{EventId: id, EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
			Attributes: &historypb.HistoryEvent_ActivityTaskCanceledEventAttributes{
				ActivityTaskCanceledEventAttributes: &historypb.ActivityTaskCanceledEventAttributes{Details: details}}}
	}
	h := &historypb.History{Events: []*historypb.HistoryEvent{
		cancelled(1, plainJSON(`"ACTIVITY_ID_NOT_STARTED"`)),
		cancelled(2, plainJSON(`{"leftovers":["x"]}`)),
		{EventId: 3, EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
			Attributes: &historypb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{
				WorkflowExecutionCompletedEventAttributes: &historypb.WorkflowExecutionCompletedEventAttributes{Result: plainJSON(`"ACTIVITY_ID_NOT_STARTED"`)}}},
	}}
	var plain []string
	var server int
	require.NoError(t, CountPayloads("wf", h, &plain, map[string]int{}, &server))
	require.Equal(t, 1, server)
	require.Len(t, plain, 2, "%v", plain)
	require.Contains(t, plain[0], "event 2 ")
	require.Contains(t, plain[1], "event 3 ")
}
