package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/testsuite"
)

// A real slipway-worker process with only OTEL_EXPORTER_OTLP_ENDPOINT set exports its spans over
// OTLP/HTTP as service slipway-worker, in the trace of the client that sent the request: the trace
// context crosses processes in the Temporal headers. Its stderr is a file, so it logs JSON lines,
// and those of the operation name it.
func TestWorkerProcessExportsTheRequestsTrace(t *testing.T) {
	var mu sync.Mutex
	type exported struct{ service, name, traceID, parentID string }
	var spans []exported
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			var service string
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, exported{service, s.Name, string(s.TraceId), string(s.ParentSpanId)})
				}
			}
		}
		mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	defer collector.Close()

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker, o.Tracer = true, tp })
	dir := t.TempDir()
	bin := filepath.Join(dir, "slipway-worker")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker").CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue,
		"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+filepath.Join(dir, "state"), "SLIPWAY_DEPLOYER=none",
		"OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL, "OTEL_TRACES_EXPORTER=", "OTEL_SDK_DISABLED=", logging.EnvFormat+"=")
	logPath := filepath.Join(dir, "worker.log")
	p, err := proc.Start("worker", cmd, logPath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })

	ctx, root := tp.Tracer("e2e").Start(t.Context(), "slipway create")
	ref := contract.Ref{Tenant: "otlp", Name: "web"}
	h, err := e.Client.Submit(ctx, ref, lifecycle.OpProvision,
		contract.OperationRequest{ConfigYAML: "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n", Actor: "e2e"}, "")
	require.NoError(t, err, "worker log:\n%s", proc.LogTail(logPath))
	res, err := h.Get(ctx)
	require.NoError(t, err)
	root.End()
	require.Equal(t, lifecycle.ConfigurationCreated, res.State, "%+v\nworker log:\n%s", res, proc.LogTail(logPath))
	// SIGTERM: the worker stops and flushes what it has not exported yet.
	require.NoError(t, p.Stop())

	tid := root.SpanContext().TraceID()
	traceID := string(tid[:])
	clientSpans := map[string]bool{}
	for _, s := range exp.GetSpans() {
		id := s.SpanContext.SpanID()
		clientSpans[string(id[:])] = true
	}
	mu.Lock()
	defer mu.Unlock()
	names := map[string]bool{}
	var inTrace int
	for _, s := range spans {
		require.Equal(t, "slipway-worker", s.service)
		if s.traceID == traceID {
			inTrace++
			names[s.name] = true
		}
		if s.name == "HandleUpdate:provision" {
			require.True(t, clientSpans[s.parentID], "the worker's span continues the client's")
		}
	}
	t.Logf("the worker exported %d spans, %d in the request's trace", len(spans), inTrace)
	for _, want := range []string{"HandleUpdate:provision", "RunWorkflow:" + contract.PipelineName(lifecycle.OpProvision),
		"RunActivity:" + contract.ActOpenMR, "RunActivity:" + contract.ActMergeMR, "git update-ref"} {
		require.True(t, names[want], "the worker's %q is in the request's trace; got %v", want, names)
	}

	logged, err := os.ReadFile(logPath)
	require.NoError(t, err)
	var jsonLines, opLines int
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue // proc's own lines
		}
		jsonLines++
		id, _ := m["WorkflowID"].(string)
		if strings.HasPrefix(id, contract.InstanceWorkflowID(ref)+"/") || (id == contract.InstanceWorkflowID(ref) && m["msg"] == "instance state") {
			// The pipeline's lines and the entity's state changes, which the provision made.
			opLines++
			require.Equal(t, res.OperationID, m[logging.KeyOperationID], line)
			require.Equal(t, "provision", m[logging.KeyOperation], line)
			require.Equal(t, "otlp/web", m[logging.KeyInstance], line)
		}
	}
	require.NotZero(t, opLines, "the provision's lines:\n%s", logged)
	require.NotZero(t, jsonLines, "a worker whose stderr is no terminal logs JSON:\n%s", logged)
	require.True(t, bytes.Contains(logged, []byte(`"msg":"tracing on`)), "the worker says tracing is on")
	t.Logf("worker log: %d JSON lines, %d of the provision, each naming it", jsonLines, opLines)
}
