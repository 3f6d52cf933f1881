package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
)

// RolloutApprove approves one instance's deploy that waits with a plan shape the rollout's approver
// approved: as that approver (the instance's policy, four-eyes and approval log see them), from the
// rollout (the record's source). A refusal is the instance's answer, returned, not retried.
func (a *Activities) RolloutApprove(ctx context.Context, in contract.RolloutApproveInput) (string, error) {
	if a.Instances == nil {
		return "", notAllowedf("this worker has no Temporal client to reach instances")
	}
	ctx = identity.With(ctx, in.Approver)
	req := contract.ApprovalRequest{Plan: in.Hash, Actor: in.Approver.Name, Source: in.Rollout,
		Reason: fmt.Sprintf("plan shape %s approved once for %s by %s", in.Fingerprint, in.Rollout, in.Approver.Name)}
	if in.Reason != "" {
		req.Reason += ": " + in.Reason
	}
	err := a.Instances.Approve(ctx, in.Ref, req, in.RequestID)
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused.Error(), nil
	}
	return "", err
}
