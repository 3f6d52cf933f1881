package activities

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// A plan or secret the keyring cannot open fails the step at once, naming the key ID; an
// unreachable store is retried.
func TestClassifyStoreErrors(t *testing.T) {
	ws := terraform.Workspace{Tenant: "acme", Name: "web"}
	unreadable := &terraform.StoreError{Command: "apply", Workspace: ws,
		Err: &store.SealError{What: `plan "3-ab" of acme/web`, KeyID: "k1", Err: &codec.UnknownKeyError{ID: "k1"}}}
	var ae *temporal.ApplicationError
	require.ErrorAs(t, classify(unreadable), &ae)
	assert.Equal(t, contract.ErrUnreadable, ae.Type())
	assert.True(t, ae.NonRetryable())
	assert.Contains(t, ae.Error(), `key id "k1"`)

	down := &terraform.StoreError{Command: "apply", Workspace: ws, Err: errors.New("connection refused")}
	if errors.As(classify(down), &ae) {
		assert.False(t, ae.NonRetryable(), "a store outage is retried")
	}
	assert.ErrorIs(t, classify(down), down.Err)
}
