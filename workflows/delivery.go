package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// deliveryBudget is how long a recorded delivery keeps trying to reach its instances:
// a delivery the forge was told is accepted must outlive a long outage, not 15 minutes.
const deliveryBudget = 24 * time.Hour

// DeliveryWorkflow carries out a delivery the webhook server recorded and answered 202:
// it reads a merged PR's instance changes, then submits each command to its instance,
// keyed by the delivery and the command's place in it.
func DeliveryWorkflow(ctx workflow.Context, in contract.Delivery) (contract.DeliveryResult, error) {
	res := contract.DeliveryResult{Delivery: in.Provider + "/" + in.ID, Outcomes: append([]contract.DeliveryOutcome{}, in.Refused...)}
	cmds := in.Commands
	if in.Merge != nil {
		var changed []contract.DeliveryCommand
		err := workflow.ExecuteActivity(deliveryCtx(ctx), contract.ActChangedInstances, *in.Merge).Get(ctx, &changed)
		if err != nil {
			res.Outcomes = append(res.Outcomes, contract.DeliveryOutcome{Error: errorMessage(err)})
			return res, nil
		}
		cmds = append(cmds, changed...)
	}
	for i, c := range cmds {
		if c.Operation == "deprovision" && !in.AllowDeprovision {
			res.Outcomes = append(res.Outcomes, contract.DeliveryOutcome{Instance: c.Ref.String(), Operation: c.Operation,
				Error: "deprovision from a webhook is disabled (serve with --allow-deprovision)"})
			continue
		}
		var out contract.DeliveryOutcome
		sin := contract.SubmitInput{Delivery: res.Delivery, Actor: in.Actor, Index: i, Command: c,
			Provider: in.Provider, User: in.User, UserID: in.UserID}
		if err := workflow.ExecuteActivity(deliveryCtx(ctx), contract.ActSubmitCommand, sin).Get(ctx, &out); err != nil {
			out = contract.DeliveryOutcome{Instance: c.Ref.String(), Operation: c.Operation, Error: errorMessage(err)}
		}
		res.Outcomes = append(res.Outcomes, out)
	}
	// Only deliveries recorded since approvals carry any, so older histories never get here.
	for i, a := range in.Approvals {
		var out contract.DeliveryOutcome
		sin := contract.ApprovalSubmit{Delivery: res.Delivery, Index: i, Command: a, Provider: in.Provider}
		if err := workflow.ExecuteActivity(deliveryCtx(ctx), contract.ActSubmitApproval, sin).Get(ctx, &out); err != nil {
			out = contract.DeliveryOutcome{Instance: a.Ref.String(), Operation: a.Verb, Error: errorMessage(err)}
		}
		res.Outcomes = append(res.Outcomes, out)
	}
	return res, nil
}

// deliveryCtx retries reaching the forge and the instances for a day; a refusal is an outcome, not an error.
func deliveryCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    2 * time.Minute,
		ScheduleToCloseTimeout: deliveryBudget,
		RetryPolicy:            retryPolicy(),
	})
}
