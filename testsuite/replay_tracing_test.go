package testsuite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/tracing"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// A worker with tracing on replays every committed history, recorded without it, to the same
// commands: the interceptor adds headers and spans, never a command.
func TestReplayCommittedHistoriesTraced(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(HistoriesDir(), "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	keys, err := attest.Parse("HistoryAttestKey", HistoryAttestKey)
	require.NoError(t, err)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(t.Context()) }()
	for _, f := range files {
		rel, _ := filepath.Rel(HistoriesDir(), f)
		t.Run(rel, func(t *testing.T) {
			r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
				Interceptors: []interceptor.WorkerInterceptor{tracing.WorkerInterceptor(tracing.WithTracerProvider(tp)), replayAttest(keys)}})
			require.NoError(t, err)
			workerapp.RegisterWorkflows(r)
			opts := worker.ReplayWorkflowHistoryOptions{OriginalExecution: workflow.Execution{ID: workflowIDOf(t, f)}}
			require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, readHistory(t, f), opts))
		})
	}
	t.Logf("%d histories replayed traced; %d spans made", len(files), len(exp.GetSpans()))
}
