package client

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/contract"
)

// followedRollout is a Temporal client whose one rollout run completes a workflow task every
// millisecond, updated times the instances it has, then closes.
type followedRollout struct {
	sdkclient.Client
	updates int
	queries atomic.Int32
	updated atomic.Int32 // instances the history has moved through
	closed  atomic.Bool
	mu      sync.Mutex
	froms   []int // each read's FromBatch
}

func (f *followedRollout) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	status := enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	if f.closed.Load() {
		status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: "rollout/r", RunId: "run"}, Status: status, HistoryLength: 3}}, nil
}

func (f *followedRollout) QueryWorkflow(_ context.Context, _, _, _ string, args ...any) (converter.EncodedValue, error) {
	f.queries.Add(1)
	from := 0
	if len(args) == 1 {
		from = args[0].(contract.RolloutStatusFrom).FromBatch
	}
	f.mu.Lock()
	f.froms = append(f.froms, from)
	f.mu.Unlock()
	// A batch of 500: the batch the rollout is in moves as it updates.
	updated := int(f.updated.Load())
	p, err := converter.GetDefaultDataConverter().ToPayloads(contract.RolloutStatus{Updated: updated,
		RolloutState: contract.RolloutState{Batch: 1 + updated/500}, FromBatch: from})
	return sdkclient.NewValue(p), err
}

func (f *followedRollout) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) sdkclient.HistoryEventIterator {
	return &movingHistory{f: f, next: 4}
}

type movingHistory struct {
	f    *followedRollout
	next int64
}

func (h *movingHistory) HasNext() bool { return h.next <= int64(3+h.f.updates) }

func (h *movingHistory) Next() (*historypb.HistoryEvent, error) {
	time.Sleep(time.Millisecond)
	h.f.updated.Add(1)
	if h.next == int64(3+h.f.updates) {
		h.f.closed.Store(true)
	}
	h.next++
	return &historypb.HistoryEvent{EventId: h.next - 1, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED}, nil
}

// A rollout that moves hundreds of times a second is read about once a followInterval, not once
// a move (each read carries every instance), and the last status read is the final one.
func TestFollowRolloutReadsACoalescedStatus(t *testing.T) {
	f := &followedRollout{updates: 1500}
	c := &Client{Temporal: f}
	var seen []int
	st, err := c.FollowRollout(context.Background(), "r", func(s *contract.RolloutStatus) bool {
		seen = append(seen, s.Updated)
		return false
	})
	require.NoError(t, err)
	require.Equal(t, 1500, st.Updated, "the rollout's last status")
	require.LessOrEqual(t, int(f.queries.Load()), 10, "status reads for %d moves", f.updates)
	require.Greater(t, len(seen), 1, "progress is shown while it moves")
	// The first read holds every instance; each next one starts at the batch the one before saw.
	require.Equal(t, 0, f.froms[0])
	for i := 1; i < len(f.froms)-1; i++ {
		require.Equal(t, 1+seen[i-1]/500, f.froms[i], "read %d starts at the batch read %d was in", i, i-1)
	}
	require.Equal(t, 0, f.froms[len(f.froms)-1], "the closed rollout's status holds every instance")
}
