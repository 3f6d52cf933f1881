// Package drive sends lifecycle requests the way a patient operator would: through server
// and worker restarts, resending under the same request ID, so a resent request is the
// same request. The chaos command and the production-topology e2e both drive with it.
package drive

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// resendEvery paces resends while the server or the connection is away.
const resendEvery = 500 * time.Millisecond

// SubmitAndWait sends one request and waits for its result, riding out worker and server
// restarts until timeout.
func SubmitAndWait(ctx context.Context, c *client.Client, ref contract.Ref, op lifecycle.Operation,
	req contract.OperationRequest, requestID string, timeout time.Duration) (contract.OperationResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		h, err := c.Submit(ctx, ref, op, req, requestID)
		if err == nil {
			var res contract.OperationResult
			if res, err = h.Get(ctx); err == nil {
				return res, nil
			}
		}
		if !Transient(err) || ctx.Err() != nil {
			return contract.OperationResult{}, err
		}
		select {
		case <-ctx.Done():
			return contract.OperationResult{}, err
		case <-time.After(resendEvery):
		}
	}
}

// Transient errors are the server or the connection being away, not an answer.
func Transient(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var cu *client.UnavailableError
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &cu) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	msg := err.Error()
	// A lost Temporal node cuts the streams through it; the update goes on on another node.
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "Unavailable") ||
		strings.Contains(msg, "transport is closing") || strings.Contains(msg, "RST_STREAM") ||
		strings.Contains(msg, "connection reset")
}

// Status reads the instance's full status, retrying for up to 30 s while the server is away.
func Status(ctx context.Context, c *client.Client, ref contract.Ref) (*contract.Status, error) {
	var last error
	for i := 0; i < 60; i++ {
		st, err := c.Status(ctx, ref, contract.StatusRequest{Output: "all"})
		if err == nil {
			return st, nil
		}
		last = err
		if !Transient(err) {
			return nil, err
		}
		time.Sleep(resendEvery)
	}
	return nil, last
}
