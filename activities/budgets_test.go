package activities

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// A step whose budget runs out fails as BudgetExceeded, non-retryable, naming the budget and
// carrying it; a failure before the budget runs out is left as it was; no budget is no deadline.
func TestOverBudget(t *testing.T) {
	b := &contract.Budget{Op: "plan", Field: "schema.timeouts.plan", Limit: 20 * time.Millisecond}
	ctx, cancel := withBudget(context.Background(), b)
	defer cancel()
	early := errors.New("terraform failed on its own")
	assert.Same(t, early, overBudget(ctx, early), "the budget has not run out yet")
	<-ctx.Done()
	err := overBudget(ctx, errors.New("terraform plan: signal: interrupt"))
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, contract.ErrBudget, ae.Type())
	assert.True(t, ae.NonRetryable())
	assert.Contains(t, ae.Error(), "plan budget 20ms (schema.timeouts.plan) ran out")
	var got contract.Budget
	require.NoError(t, ae.Details(&got))
	assert.Equal(t, *b, got)
	assert.NoError(t, overBudget(ctx, nil))

	plain, cancel2 := withBudget(context.Background(), nil)
	defer cancel2()
	_, has := plain.Deadline()
	assert.False(t, has)

	assert.Nil(t, budgets(config.Timeouts{}), "no timeouts: the pipeline runs as before")
	assert.Equal(t, &contract.Budgets{Apply: time.Hour}, budgets(config.Timeouts{Apply: time.Hour}))
}

// Heartbeats go on after the budget ran out, while the interrupted terraform stops: they use
// the activity's own context, not the budget's.
func TestHeartbeatsOutliveTheBudget(t *testing.T) {
	outer, stop := context.WithCancel(context.Background())
	defer stop()
	b := &contract.Budget{Op: "plan", Field: "schema.timeouts.plan", Limit: time.Millisecond}
	ctx, cancel := withBudget(outer, b)
	defer cancel()
	<-ctx.Done()
	hb := heartbeatCtx(ctx)
	require.NoError(t, hb.Err(), "the budget ran out, the activity did not")
	stop()
	require.Error(t, hb.Err(), "the activity's own end still ends the heartbeats")
	plain := context.Background()
	assert.Equal(t, plain, heartbeatCtx(plain))
}
