package apiserver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
)

// A long poll the frontend ends before its deadline is a request still running, not a 500 (which
// a CLI following a long operation through the server used to get).
func TestAPollThatTimedOutIsStillRunning(t *testing.T) {
	timedOut := fmt.Errorf("wait for request: %w", sdkclient.NewWorkflowUpdateServiceTimeoutOrCanceledError(context.DeadlineExceeded))
	require.True(t, pollTimedOut(timedOut))
	require.False(t, pollTimedOut(errors.New("instance acme/web not found")))
}
