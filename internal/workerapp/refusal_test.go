package workerapp

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/attest"
	slipclient "github.com/slipway-dev/slipway/internal/client"
)

// A denied comment approval is answered on the PR, never retried: the policy's answer is final
// whether the client translated it or not.
func TestPolicyDenialsAreRefusalsNotRetries(t *testing.T) {
	for name, err := range map[string]error{
		"translated":      &slipclient.RefusedError{Message: "dave may not approve"},
		"policy":          temporal.NewNonRetryableApplicationError("dave may not approve", slipclient.ErrPolicyDenied, nil),
		"unauthenticated": temporal.NewNonRetryableApplicationError("dave may not approve", attest.ErrorType, nil),
	} {
		var refused *activities.RefusedError
		require.True(t, errors.As(refusal(err), &refused), name)
		require.Contains(t, refused.Error(), "dave may not approve", name)
	}
	blip := errors.New("connection reset")
	require.Equal(t, blip, refusal(blip), "anything else is retried")
}
