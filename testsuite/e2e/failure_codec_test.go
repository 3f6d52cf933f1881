package e2e

import (
	"context"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/stretchr/testify/require"

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
