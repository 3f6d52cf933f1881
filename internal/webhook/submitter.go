package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// ClientSubmitter submits through the slipway client, waiting at most accept for
// a worker to accept each request.
func ClientSubmitter(c *client.Client, accept time.Duration) Submitter {
	return clientSubmitter{c: c, accept: accept}
}

type clientSubmitter struct {
	c      *client.Client
	accept time.Duration
}

func (s clientSubmitter) Submit(ctx context.Context, ref steps.Ref, op lifecycle.Operation, req workflows.OperationRequest, id string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.accept)
	defer cancel()
	h, err := s.c.Submit(ctx, ref, op, req, id)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", op, ref, err)
	}
	return h.RequestID, nil
}
