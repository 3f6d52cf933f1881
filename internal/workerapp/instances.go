package workerapp

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/attest"
	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// instances is activities.Instances over the slipway client: visibility lists, the status
// query reads, and requests go as the CLI sends them.
type instances struct{ c *slipclient.Client }

func (i instances) List(ctx context.Context, stack, tenant string) ([]contract.ListedInstance, error) {
	items, err := i.c.List(ctx, slipclient.ListFilter{Stack: stack, Tenant: tenant})
	return listed(items), err
}

func (i instances) ListPage(ctx context.Context, stack, tenant string, size int, page []byte) ([]contract.ListedInstance, []byte, error) {
	items, next, err := i.c.ListPage(ctx, slipclient.ListFilter{Stack: stack, Tenant: tenant}, size, page)
	return listed(items), next, err
}

func listed(items []slipclient.ListItem) []contract.ListedInstance {
	out := make([]contract.ListedInstance, 0, len(items))
	for _, it := range items {
		out = append(out, contract.ListedInstance{Ref: contract.Ref{Tenant: it.Tenant, Name: it.Name}, State: it.State, Ready: it.Ready, Gated: it.Gated})
	}
	return out
}

func (i instances) Deployed(ctx context.Context, ref contract.Ref) (string, string, error) {
	st, err := i.c.Status(ctx, ref, contract.StatusRequest{})
	if err != nil {
		return "", "", err
	}
	ready := ""
	for _, c := range st.Conditions {
		if c.Type == lifecycle.CondReady {
			ready = string(c.Status)
		}
	}
	return st.Deployed, ready, nil
}

func (i instances) Ready(ctx context.Context, ref contract.Ref) (lifecycle.Condition, error) {
	st, err := i.c.Status(ctx, ref, contract.StatusRequest{})
	if err != nil {
		return lifecycle.Condition{}, err
	}
	for _, c := range st.Conditions {
		if c.Type == lifecycle.CondReady {
			return c, nil
		}
	}
	return lifecycle.Condition{Type: lifecycle.CondReady, Status: lifecycle.ConditionUnknown}, nil
}

func (i instances) Deploy(ctx context.Context, ref contract.Ref, configYAML, rollout, actor, requestID string, priority int) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	req := contract.OperationRequest{ConfigYAML: configYAML, Actor: actor, Rollout: rollout, Priority: priority}
	_, err := i.c.Submit(ctx, ref, lifecycle.OpDeploy, req, requestID)
	return refusal(err)
}

func (i instances) Retry(ctx context.Context, ref contract.Ref, actor, requestID string) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	req := contract.DecisionRequest{Actor: actor, Reason: "rollout resumed: retry its failed deploy"}
	_, err := i.c.Decide(ctx, ref, lifecycle.DecisionRetry, req, requestID)
	return refusal(err)
}

// refusal wraps the instance's own answers (busy, not allowed, invalid) as a RefusedError.
func refusal(err error) error {
	// The policy's answer (or a refused identity) is the instance's: no retry changes it. The
	// client translates it into a *RefusedError; an untranslated application error is the same.
	var refused *slipclient.RefusedError
	if errors.As(err, &refused) {
		return &activities.RefusedError{Err: errors.New(refused.Message)}
	}
	var denied *temporal.ApplicationError
	if errors.As(err, &denied) && (denied.Type() == slipclient.ErrPolicyDenied || denied.Type() == attest.ErrorType) {
		return &activities.RefusedError{Err: errors.New(denied.Message())}
	}
	if !slipclient.IsBadRequest(err) {
		return err
	}
	var rj *slipclient.RejectedError
	return &activities.RefusedError{Err: err, Busy: errors.As(err, &rj) && rj.Busy}
}

func (i instances) CheckDrift(ctx context.Context, ref contract.Ref, actor, requestID string) (contract.DriftOutput, error) {
	out, err := i.c.CheckDrift(ctx, ref, contract.DriftRequest{Actor: actor}, requestID)
	var failed *temporal.ApplicationError
	if errors.As(err, &failed) {
		// The check ran and failed (a locked state, say): asking again with the same request ID
		// only returns the same answer, so it is the instance's answer, not a blip.
		return out, &activities.RefusedError{Err: fmt.Errorf("the drift check failed: %s", innermost(failed))}
	}
	return out, refusal(err)
}

func (i instances) PlanConfig(ctx context.Context, ref contract.Ref, configYAML, actor, requestID string) (contract.OperationResult, error) {
	actx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	h, err := i.c.Submit(actx, ref, lifecycle.OpPlan, contract.OperationRequest{ConfigYAML: configYAML, Actor: actor}, requestID)
	if err != nil {
		return contract.OperationResult{}, refusal(err)
	}
	res, err := h.Get(ctx)
	return res, refusal(err)
}

func (i instances) Approve(ctx context.Context, ref contract.Ref, req contract.ApprovalRequest, requestID string) error {
	_, err := i.c.Approval(ctx, ref, contract.VerbApprove, req, requestID)
	return refusal(err)
}

// innermost is the message of the deepest application error: what the activity said.
func innermost(err *temporal.ApplicationError) string {
	msg := err.Message()
	for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
		var a *temporal.ApplicationError
		if errors.As(e, &a) {
			msg, e = a.Message(), a
		}
	}
	return msg
}
