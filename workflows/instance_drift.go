package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// admitDriftCheck lets a check run only on an idle Deployed instance: it holds the instance
// like an operation, so it never overlaps one.
func (e *entity) admitDriftCheck() error {
	switch {
	case e.busy:
		return busyError(fmt.Sprintf("%s is busy: %s; the drift check is skipped, not queued", e.s.Ref, e.runningLine()))
	case e.s.State != lifecycle.Deployed || e.s.DeployedRevision == "":
		return notAllowed("%s: a drift check needs a Deployed instance; it is %s", e.s.Ref, e.s.State)
	}
	return nil
}

// checkDrift plans the deployed revision against the world and records the verdict as the
// Drifted condition and search attribute. It changes no infrastructure.
func (e *entity) checkDrift(ctx workflow.Context, req contract.DriftRequest) (contract.DriftOutput, error) {
	if err := e.admitDriftCheck(); err != nil {
		return contract.DriftOutput{}, err
	}
	e.busy, e.holding = true, "a drift check"
	defer func() { e.busy, e.holding = false, "" }()
	e.s.DriftChecks++
	in := contract.DriftInput{Ref: e.s.Ref, Revision: e.s.DeployedRevision,
		CheckID: fmt.Sprintf("drift-%d-%s", e.s.DriftChecks, e.s.Epoch)}
	var out contract.DriftOutput
	actx := terraformCtx(ctx)
	if e.s.ControlPlane != "" {
		// The instance's pool holds its state and reaches its infrastructure, so it checks.
		actx = workflow.WithTaskQueue(actx, controlplane.TaskQueue(workflow.GetInfo(ctx).TaskQueueName, e.s.ControlPlane))
	}
	if err := workflow.ExecuteActivity(actx, contract.ActCheckDrift, in).Get(ctx, &out); err != nil {
		return out, err
	}
	e.s.Drift = &contract.DriftRecord{Drifted: out.Drifted, Resources: out.Resources(), Revision: in.Revision,
		Actor: req.Actor, CheckedAt: workflow.Now(ctx)}
	e.upsertSearchAttributes(ctx)
	return out, nil
}

// clearDrift records that a deploy re-applied the config a drift check found changed.
func (e *entity) clearDrift(op *contract.Operation) {
	if d := e.s.Drift; d != nil && d.Drifted {
		d.Drifted, d.ClearedBy, d.Resources = false, fmt.Sprintf("%s %s", op.Kind, op.ID), nil
	}
}

// driftCondition is the Drifted condition status shows; nil before the first check.
func (e *entity) driftCondition() *lifecycle.Condition {
	d := e.s.Drift
	if d == nil {
		return nil
	}
	c := cond(lifecycle.CondDrifted, lifecycle.ConditionFalse, "InSync", "matches revision "+short(d.Revision))
	switch {
	case d.Drifted:
		c = cond(lifecycle.CondDrifted, lifecycle.ConditionTrue, "Changed", strings.Join(d.Resources, "; "))
	case d.ClearedBy != "":
		c.Reason, c.Message = "Redeployed", d.ClearedBy+" re-applied the config"
	}
	c.ObservedAt = d.CheckedAt
	return &c
}
