package testsuite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/app"
	"github.com/slipway-dev/slipway/internal/attest"
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
				Interceptors: []interceptor.WorkerInterceptor{attest.WorkerInterceptor(keys)}})
			require.NoError(t, err)
			app.RegisterWorkflows(r)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
