package testsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// Every committed history must replay against today's workflow code: a change
// that would break running workflows fails here (use workflow.GetVersion).
func TestReplayCommittedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(HistoriesDir(), "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no histories in %s: record them with %s=1 go test ./testsuite/e2e/", HistoriesDir(), RecordEnv)
	keys, err := attest.Parse("HistoryAttestKey", HistoryAttestKey)
	require.NoError(t, err)
	for _, f := range files {
		rel, _ := filepath.Rel(HistoriesDir(), f)
		t.Run(rel, func(t *testing.T) {
			r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
				Interceptors: []interceptor.WorkerInterceptor{replayAttest(keys)}})
			require.NoError(t, err)
			workerapp.RegisterWorkflows(r)
			h := readHistory(t, f)
			// Attestations name their workflow: replay under its own ID, not the replayer's stand-in.
			opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: workflowIDOf(t, f)}}
			require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, h, opts))
		})
	}
}

// replayAttest verifies as the worker's interceptor does (workerapp): scheduled sweeps are exempt.
func replayAttest(keys *attest.Keyring) interceptor.WorkerInterceptor {
	return attest.WorkerInterceptor(keys, attest.ExemptScheduled(contract.DriftSweepWorkflowName))
}

func readHistory(t *testing.T, path string) *historypb.History {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return h
}

// workflowIDOf finds the ID of the workflow whose history path holds: its start names it on
// servers that record it; else a child's (NN-type.json) is the NNth child the entity started,
// and the entity's is the parent its children name.
func workflowIDOf(t *testing.T, path string) string {
	if id := readHistory(t, path).Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowId(); id != "" {
		return id
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	entity := filepath.Join(dir, "00-entity.json")
	var children []string
	for _, ev := range readHistory(t, entity).Events {
		if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
			children = append(children, a.WorkflowId)
		}
	}
	var n int
	if _, err := fmt.Sscanf(base, "%02d-", &n); err == nil && n > 0 && n <= len(children) {
		return children[n-1]
	}
	for i := range children {
		matches, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("%02d-*.json", i+1)))
		for _, m := range matches {
			if id := readHistory(t, m).Events[0].GetWorkflowExecutionStartedEventAttributes().GetParentWorkflowExecution().GetWorkflowId(); id != "" {
				return id
			}
		}
	}
	return "ReplayId"
}
