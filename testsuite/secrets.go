package testsuite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// SecretLeaks looks for each value in every workflow history of this env's task
// queue (as JSON: inputs, results, signals, search attributes, memos) and in the
// whole GitOps repository history, and returns where each was found.
func (e *Env) SecretLeaks(t testing.TB, values []string) []string {
	t.Helper()
	var haystacks []struct{ where, text string }
	resp, err := e.Client.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("TaskQueue = '%s'", e.TaskQueue),
	})
	require.NoError(t, err)
	require.NotEmpty(t, resp.Executions, "no workflows to search")
	for _, ex := range resp.Executions {
		h := fetchHistory(t, e.Client.Temporal, ex.Execution.WorkflowId)
		data, err := protojson.Marshal(h)
		require.NoError(t, err)
		// Payload bytes are base64 in JSON: search their decoded data as well.
		text := string(data) + "\n" + strings.Join(PayloadData(h.ProtoReflect()), "\n")
		haystacks = append(haystacks, struct{ where, text string }{"history " + ex.Execution.WorkflowId, text})
	}
	haystacks = append(haystacks, struct{ where, text string }{"git", Git(t, e.GitOpsRepo, "log", "-p", "--all")})
	var hits []string
	for _, v := range values {
		for _, h := range haystacks {
			if strings.Contains(h.text, v) {
				hits = append(hits, h.where)
			}
		}
	}
	return hits
}

// PayloadData returns the raw data of every Payload inside m, however deep.
func PayloadData(m protoreflect.Message) []string {
	if p, ok := m.Interface().(*commonpb.Payload); ok {
		return []string{string(p.GetData())}
	}
	var out []string
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				out = append(out, PayloadData(v.List().Get(i).Message())...)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				out = append(out, PayloadData(mv.Message())...)
				return true
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			out = append(out, PayloadData(v.Message())...)
		}
		return true
	})
	return out
}
