package activities

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

func TestRedactorRemovesSecretsFromWhatLeavesAnActivity(t *testing.T) {
	r := newRedactor(map[string]string{"admin_password": "s3cr3t-value", "empty": ""})
	st := r.status(contract.AppStatus{Message: "jsonnet: s3cr3t-value is bad",
		Resources: []contract.Resource{{Name: "x", Message: "got s3cr3t-value"}}})
	require.Equal(t, "jsonnet: [redacted] is bad", st.Message)
	require.Equal(t, "got [redacted]", st.Resources[0].Message)

	typed := temporal.NewNonRetryableApplicationError("sync failed: s3cr3t-value", contract.ErrDeployFailed, nil)
	err := r.error(fmt.Errorf("wrapped: %w", typed))
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, contract.ErrDeployFailed, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t, "sync failed: [redacted]", appErr.Message())
	require.Nil(t, errors.Unwrap(appErr), "no cause chain carries the original text")

	plain := r.error(errors.New("dial: s3cr3t-value"))
	require.EqualError(t, plain, "dial: [redacted]")
	require.NoError(t, r.error(nil))
}

func TestRateLimitsRetryAfterTheForgesDelay(t *testing.T) {
	err := classify(fmt.Errorf("open: %w", &forge.RateLimitError{RetryAfter: 42 * time.Second, Message: "slow down"}))
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, contract.ErrRateLimited, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Equal(t, 42*time.Second, appErr.NextRetryDelay())
}
