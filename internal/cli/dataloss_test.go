package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// A deploy whose plan deleted or replaced resources says so when --wait ends and in status, as
// plan does: the warning is not left to the JSON.
func TestDeployAndStatusWarnOfDataLoss(t *testing.T) {
	plan := &contract.PlanSummary{Add: 1, Destroy: 1, DataLoss: []string{"terraform_data.db"}}
	const warning = "possible data loss: 1 resource(s) deleted or replaced, and the data they hold with them: terraform_data.db\n"
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	g.printResult("acme/web", contract.OperationResult{Kind: lifecycle.OpDeploy, Result: contract.ResultSucceeded,
		State: lifecycle.Deployed, Plan: plan})
	assert.Equal(t, "acme/web is Deployed (deploy succeeded)\n"+warning, out.String())

	out.Reset()
	g.printStatus(&contract.Status{Name: "acme/web", State: lifecycle.Deployed,
		Operation: &contract.OperationStatus{Kind: lifecycle.OpDeploy, Result: contract.ResultSucceeded, Plan: plan}})
	assert.Contains(t, out.String(), warning)

	out.Reset()
	g.printResult("acme/web", contract.OperationResult{Kind: lifecycle.OpDeploy, Result: contract.ResultSucceeded,
		State: lifecycle.Deployed, Plan: &contract.PlanSummary{Change: 1}})
	assert.NotContains(t, out.String(), "data loss", "an in-place change loses nothing")
}
