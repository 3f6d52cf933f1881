package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap/zapcore"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// One deploy through real ArgoCD on a real kube-apiserver, with real terraform, is one trace: the
// request span is its root, the update and the pipeline's workflow hang under it, each step's
// activity under the pipeline, and the terraform commands and ArgoCD calls under their activity.
// The worker's JSON log lines of that deploy each name the instance, the operation and its ID,
// and the step when an activity logs them.
func TestTracingOneDeployIsOneTree(t *testing.T) {
	stack := cluster.Start(t)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	logs := &lockedBuffer{}
	zl, err := logging.NewTo(zapcore.AddSync(logs), "debug", logging.FormatJSON)
	require.NoError(t, err)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
		o.Tracer, o.Logger = tp, logging.NewTemporal(zl)
	})
	e.MustCLI(0, "create", "trace/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"), "--wait")

	// The CLI's request span (internal/cli/tracing.go), made here with the test's provider.
	ctx, root := tp.Tracer("e2e").Start(t.Context(), "slipway deploy")
	ref := contract.Ref{Tenant: "trace", Name: "web"}
	h, err := e.Client.Submit(ctx, ref, lifecycle.OpDeploy, contract.OperationRequest{Actor: "e2e"}, "")
	require.NoError(t, err)
	res, err := h.Get(ctx)
	require.NoError(t, err)
	root.End()
	require.Equal(t, lifecycle.Deployed, res.State, "%+v", res)

	tr := treeOf(exp.GetSpans(), root.SpanContext().TraceID())
	t.Logf("one deploy: %d spans in its trace\n%s", len(tr.spans), tr.String())
	rootID := root.SpanContext().SpanID()
	for id, s := range tr.spans {
		if id != rootID {
			require.Contains(t, tr.spans, s.Parent.SpanID(), "span %q has a parent outside the trace", s.Name)
		}
	}
	update := tr.one(t, "UpdateWorkflow:deploy")
	require.Equal(t, rootID, update.Parent.SpanID(), "the update is the request's child")
	handle := tr.one(t, "HandleUpdate:deploy")
	require.True(t, tr.under(handle, update), "the entity handles the update under the client's span")
	run := tr.one(t, "RunWorkflow:"+contract.PipelineName(lifecycle.OpDeploy))
	require.True(t, tr.under(run, handle), "the pipeline runs under the update")
	for _, act := range []string{contract.ActTerraformPlan, contract.ActTerraformApply, contract.ActDeployApp} {
		require.True(t, tr.under(tr.one(t, "RunActivity:"+act), run), "step %s under the pipeline", act)
	}
	for cmd, act := range map[string]string{"terraform plan": contract.ActTerraformPlan, "terraform apply": contract.ActTerraformApply} {
		require.Equal(t, "RunActivity:"+act, tr.activityOf(tr.one(t, cmd)).Name, "%s under its activity", cmd)
	}
	argo, err := url.Parse(stack.ArgoURL)
	require.NoError(t, err)
	var argoCalls int
	for _, s := range tr.spans {
		if s.SpanKind == trace.SpanKindClient && strings.HasSuffix(s.Name, " "+argo.Host) {
			argoCalls++
			require.Equal(t, "RunActivity:"+contract.ActDeployApp, tr.activityOf(s).Name, "ArgoCD call %q under the deploy step", s.Name)
		}
	}
	require.NotZero(t, argoCalls, "the deploy step's ArgoCD calls are spans")

	// Its log lines: every one that names the pipeline's workflow carries the operation's fields.
	prefix := contract.InstanceWorkflowID(ref) + "/deploy-"
	var lines, stepLines, entityLines int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "a JSON object a line: %s", line)
		id, _ := m["WorkflowID"].(string)
		if id == contract.InstanceWorkflowID(ref) && m["msg"] == "instance state" && m[logging.KeyOperationID] == res.OperationID {
			// The entity's own lines about the deploy (Deployed -> Deploying -> Deployed).
			entityLines++
			require.Equal(t, "trace/web", m[logging.KeyInstance], line)
			require.Equal(t, "deploy", m[logging.KeyOperation], line)
			require.Equal(t, 1, strings.Count(line, `"instance"`), "no repeated key: %s", line)
		}
		if !strings.HasPrefix(id, prefix) {
			continue
		}
		lines++
		require.Equal(t, "trace/web", m[logging.KeyInstance], line)
		require.Equal(t, "deploy", m[logging.KeyOperation], line)
		require.Equal(t, res.OperationID, m[logging.KeyOperationID], line)
		if at, _ := m["ActivityType"].(string); at != "" && at != contract.ActCollectLeftovers {
			stepLines++
			require.NotEmpty(t, m[logging.KeyStep], line)
		}
	}
	require.NotZero(t, lines, "the deploy's workflow logged")
	require.Equal(t, 2, entityLines, "the entity's state lines name the deploy")
	t.Logf("%d JSON log lines of the deploy's pipeline (%d about its activities, with their step) and %d of its entity, each with instance, operation, operationID",
		lines, stepLines, entityLines)
}

// spanTree is one trace's ended spans by ID.
type spanTree struct {
	spans map[trace.SpanID]tracetest.SpanStub
}

func treeOf(all tracetest.SpanStubs, id trace.TraceID) spanTree {
	t := spanTree{spans: map[trace.SpanID]tracetest.SpanStub{}}
	for _, s := range all {
		if s.SpanContext.TraceID() == id {
			t.spans[s.SpanContext.SpanID()] = s
		}
	}
	return t
}

// one is the trace's only span named name.
func (t spanTree) one(tb testing.TB, name string) tracetest.SpanStub {
	tb.Helper()
	var found []tracetest.SpanStub
	for _, s := range t.spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	require.NotEmpty(tb, found, "no span %q in the trace", name)
	return found[0]
}

// under reports whether s descends from anc.
func (t spanTree) under(s, anc tracetest.SpanStub) bool {
	for p, ok := t.spans[s.Parent.SpanID()]; ok; p, ok = t.spans[p.Parent.SpanID()] {
		if p.SpanContext.SpanID() == anc.SpanContext.SpanID() {
			return true
		}
	}
	return false
}

// activityOf is the nearest RunActivity span above s.
func (t spanTree) activityOf(s tracetest.SpanStub) tracetest.SpanStub {
	for p, ok := t.spans[s.Parent.SpanID()]; ok; p, ok = t.spans[p.Parent.SpanID()] {
		if strings.HasPrefix(p.Name, "RunActivity:") {
			return p
		}
	}
	return tracetest.SpanStub{}
}

// String draws the tree, children in start order.
func (t spanTree) String() string {
	kids := map[trace.SpanID][]tracetest.SpanStub{}
	var roots []tracetest.SpanStub
	for _, s := range t.spans {
		if _, ok := t.spans[s.Parent.SpanID()]; ok {
			kids[s.Parent.SpanID()] = append(kids[s.Parent.SpanID()], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var draw func(ss []tracetest.SpanStub, depth int)
	draw = func(ss []tracetest.SpanStub, depth int) {
		sort.Slice(ss, func(i, j int) bool { return ss[i].StartTime.Before(ss[j].StartTime) })
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s %s\n", strings.Repeat("  ", depth), s.Name, s.EndTime.Sub(s.StartTime).Round(1e6))
			draw(kids[s.SpanContext.SpanID()], depth+1)
		}
	}
	draw(roots, 0)
	return b.String()
}

// lockedBuffer is a log sink the worker's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
