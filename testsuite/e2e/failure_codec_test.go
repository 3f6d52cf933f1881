package e2e

import (
	"context"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
)

// A failed pipeline's record (steps, leftovers, progress) travels as an error's details. The
// SDK encodes those with its own default converter unless told otherwise: stored in the clear.
func TestAFailedPipelinesRecordIsEncrypted(t *testing.T) {
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the broken stack", map[string][]byte{
		"stacks/broken/schema.yaml":             []byte(brokenSchema),
		"stacks/broken/terraform/main.tf.tmpl":  []byte(brokenTF),
		"stacks/broken/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	file := writeFile(t, "stack: broken\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "acme/sealed", "-f", file, "--wait")
	e.MustCLI(1, "deploy", "acme/sealed", "--wait")
	st := e.Status("acme/sealed")
	require.NotNil(t, st.Failure, "the deploy failed and its record came back decoded")
	require.Equal(t, contract.TFApply, st.Failure.Step)

	ctx := context.Background()
	entity := contract.InstanceWorkflowID(contract.Ref{Tenant: "acme", Name: "sealed"})
	ids, failures := []string{entity}, 0
	var plain []string
	for i := 0; i < len(ids); i++ {
		h := &historypb.History{}
		it := e.Client.Temporal.GetWorkflowHistory(ctx, ids[i], "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			h.Events = append(h.Events, ev)
			if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
				ids = append(ids, a.GetWorkflowExecution().GetWorkflowId())
			}
			if ev.GetChildWorkflowExecutionFailedEventAttributes() != nil || ev.GetWorkflowExecutionFailedEventAttributes() != nil {
				failures++
			}
		}
		require.NoError(t, testsuite.CountPayloads(ids[i], h, &plain, map[string]int{}, new(int)))
	}
	require.GreaterOrEqual(t, failures, 2, "the pipeline's failure and the entity's record of it were both read")
	require.Empty(t, plain, "payloads stored in the clear")
}

// An error's message and stack trace are sealed like its details: a terraform failure quoting a
// secret is in the clear in neither the activity's failure, the pipeline's nor the entity's
// record of its child, while a slipway client (the CLI here) still reads it.
func TestFailureMessagesAreEncrypted(t *testing.T) {
	const secret = "token=sk_live_4f9a1c7e2b"
	e := testsuite.NewEnv(t)
	tf := strings.Replace(brokenTF, "echo provisioning failed", "echo provisioning failed with "+secret, 1)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the broken stack", map[string][]byte{
		"stacks/broken/schema.yaml":             []byte(brokenSchema),
		"stacks/broken/terraform/main.tf.tmpl":  []byte(tf),
		"stacks/broken/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	file := writeFile(t, "stack: broken\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "acme/leaky", "-f", file, "--wait")
	e.MustCLI(1, "deploy", "acme/leaky", "--wait")
	require.Contains(t, e.MustCLI(0, "status", "acme/leaky", "-o", "all", "--json").Stdout, secret, "the CLI decodes the failure")

	failed := map[enumspb.EventType]int{}
	for id, h := range e.Histories(t) {
		for _, ev := range h.Events {
			raw, err := proto.Marshal(ev)
			require.NoError(t, err)
			require.NotContains(t, string(raw), secret, "%s event %d %s", id, ev.EventId, ev.EventType)
			switch ev.EventType {
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
				failed[ev.EventType]++
			}
		}
	}
	for _, et := range []enumspb.EventType{enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED, enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED} {
		require.NotZero(t, failed[et], "no %s event was read", et)
	}
}
