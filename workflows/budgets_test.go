package workflows_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Each terraform step is handed its stack's budget: init and plan the plan budget, apply and
// destroy their own; a budget the stack leaves out, and every step of a stack without
// timeouts, gets none (the fixed hour, as before).
func TestTerraformStepsGetTheStacksBudgets(t *testing.T) {
	x := newControls(t, contract.Controls{Budgets: &contract.Budgets{Plan: 2 * time.Minute, Apply: 90 * time.Minute}})
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{})
	require.NoError(t, err)
	plan := &contract.Budget{Op: "plan", Field: "schema.timeouts.plan", Limit: 2 * time.Minute}
	assert.Equal(t, []*contract.Budget{plan}, x.budgets[contract.ActTerraformInit])
	assert.Equal(t, []*contract.Budget{plan}, x.budgets[contract.ActTerraformPlan])
	assert.Equal(t, []*contract.Budget{{Op: "apply", Field: "schema.timeouts.apply", Limit: 90 * time.Minute}}, x.budgets[contract.ActTerraformApply])

	// A destroy applies the destroy plan it had approved: under the destroy budget.
	x = newControls(t, contract.Controls{Budgets: &contract.Budgets{Plan: 2 * time.Minute, Destroy: 5 * time.Minute}})
	x.decide(time.Minute, contract.VerbApprove, 1)
	_, err = x.run(lifecycle.OpDestroy, contract.PipelineInput{})
	require.NoError(t, err)
	assert.Equal(t, []*contract.Budget{plan}, x.budgets[contract.ActTerraformPlan])
	assert.Equal(t, []*contract.Budget{{Op: "destroy", Field: "schema.timeouts.destroy", Limit: 5 * time.Minute}}, x.budgets[contract.ActTerraformApply])

	x = newControls(t, contract.Controls{})
	_, err = x.run(lifecycle.OpDeploy, contract.PipelineInput{})
	require.NoError(t, err)
	assert.Equal(t, []*contract.Budget{nil}, x.budgets[contract.ActTerraformApply])
	assert.Equal(t, []*contract.Budget{nil}, x.budgets[contract.ActTerraformPlan])
}

// An apply that ran out of its budget fails the step at once (no retry) with a leftover that
// names the budget's field and says how to go on.
func TestARunOutBudgetFailsTheStepWithALeftoverNamingIt(t *testing.T) {
	x := newControls(t, contract.Controls{Budgets: &contract.Budgets{Apply: 2 * time.Minute}})
	b := contract.Budget{Op: "apply", Field: "schema.timeouts.apply", Limit: 2 * time.Minute}
	x.applyErr = temporal.NewNonRetryableApplicationError(b.RanOut()+"; terraform was interrupted and saved its state", contract.ErrBudget, nil, b)
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "got %v", err)
	var pf contract.PipelineFailure
	require.NoError(t, appErr.Details(&pf))
	assert.Equal(t, contract.TFApply, pf.Failure.Step)
	assert.Equal(t, contract.ErrBudget, pf.Failure.Type)
	assert.Contains(t, pf.Failure.Error, "apply budget 2m (schema.timeouts.apply) ran out")
	assert.Equal(t, 1, x.calls[contract.ActTerraformApply], "not retried")
	require.Len(t, pf.Failure.Leftovers, 1)
	l := pf.Failure.Leftovers[0]
	assert.Equal(t, contract.LeftoverBudget, l.Kind)
	assert.Equal(t, "schema.timeouts.apply", l.ID)
	assert.Contains(t, l.Cleanup, "raise schema.timeouts.apply")
}
