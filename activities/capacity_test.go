package activities

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// A stack that draws on a budget the platform does not name is refused as invalid (exit 2),
// naming the field; one it names passes, and reaches the pipeline in the controls.
func TestCheckCapacityNamesTheUnknownBudget(t *testing.T) {
	a := &Activities{Budgets: capacity.Budgets{"aws-prod": 8}}
	stack := &config.Stack{Name: "web", Schema: &config.Schema{Capacity: config.Capacity{Apply: "aws-prod", Destroy: "aws-prd"}}}
	err := a.checkCapacity(stack)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	assert.Equal(t, contract.ErrInvalidConfig, appErr.Type())
	var fields []contract.FieldError
	require.NoError(t, appErr.Details(&fields))
	require.Len(t, fields, 1)
	assert.Equal(t, "stacks/web: schema.capacity.destroy", fields[0].Field)
	assert.Contains(t, fields[0].Message, `capacity budget "aws-prd" is not one the platform names in SLIPWAY_CAPACITY_FILE`)

	stack.Schema.Capacity.Destroy = "aws-prod"
	require.NoError(t, a.checkCapacity(stack))
	assert.Equal(t, &contract.Capacity{Apply: "aws-prod", Destroy: "aws-prod"}, controls(stack, &config.Instance{Stack: "web"}).Capacity)
	assert.Nil(t, controls(&config.Stack{Schema: &config.Schema{}}, &config.Instance{}).Capacity, "a stack that names none draws on none")

	_, err = a.CapacityAcquire(context.Background(), contract.CapacityRequest{Budget: "gone"})
	require.True(t, errors.As(err, &appErr), "%v", err)
	assert.Equal(t, contract.ErrInvalidConfig, appErr.Type(), "a budget the platform stopped naming fails the step, not retried")
}
