package workerapp

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/capacity"
	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/nameclaim"
)

// acceptWait bounds one wait for an instance to accept a request; it stays under the
// delivery activity's start-to-close so a slow instance is retried, not timed out.
const acceptWait = 90 * time.Second

// Attach gives the activities what needs the worker's own Temporal connection.
func Attach(acts *activities.Activities, c client.Client, taskQueue string) {
	acts.Requests = requests{c: slipclient.New(c, taskQueue, "")}
	acts.Names = nameclaim.New(c, taskQueue)
	acts.Semaphores = capacity.NewSemaphores(c, taskQueue)
	acts.Fleet = fleet{c: c}
	acts.Instances = instances{c: slipclient.New(c, taskQueue, "")}
	acts.ControlPlanes = pools{c: c}
	acts.Dependencies = dependencies{c: slipclient.New(c, taskQueue, "")}
	acts.Runs = runs{c: c}
}

// requests submits webhook commands as the CLI would, turning refusals into RefusedError.
type requests struct{ c *slipclient.Client }

func (r requests) Submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, configYAML, actor, requestID string) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	req := contract.OperationRequest{ConfigYAML: configYAML, Actor: actor, Confirm: op == lifecycle.OpDeprovision}
	var err error
	if op == lifecycle.OpProvision {
		// As the CLI does: a name another instance holds is refused before anything is sent.
		err = r.c.CheckNames(ctx, ref)
	}
	if err == nil {
		_, err = r.c.Submit(ctx, ref, op, req, requestID)
	}
	return refusal(err)
}

// Adopt provisions ref from the config a push put on main at commit (Grove's local create).
func (r requests) Adopt(ctx context.Context, ref contract.Ref, configYAML, commit, actor, requestID string) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	if err := r.c.CheckNames(ctx, ref); err != nil {
		return refusal(err)
	}
	req := contract.OperationRequest{ConfigYAML: configYAML, Actor: actor, Adopt: commit}
	h, err := r.c.Submit(ctx, ref, lifecycle.OpProvision, req, requestID)
	if err != nil {
		return refusal(err)
	}
	// It records a commit and opens no MR, so it ends in moments: the tenant's commit status then
	// says what became of it (the policy decides after the request is accepted).
	res, err := h.Get(ctx)
	if err != nil {
		return refusal(err)
	}
	if res.Result == contract.ResultFailed && res.Failure != nil {
		return &activities.RefusedError{Err: fmt.Errorf("%s: create failed at step %s: %s", ref, res.Failure.Step, res.Failure.Error)}
	}
	return nil
}

// Approve sends a forge comment's approve or reject to its instance, keyed by requestID.
func (r requests) Approve(ctx context.Context, cmd contract.ApprovalCommand, source, requestID string) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	req := contract.ApprovalRequest{Plan: cmd.Plan, Actor: cmd.Commenter, Reason: cmd.Reason, Source: source, MR: cmd.MR}
	_, err := r.c.Approval(ctx, cmd.Ref, cmd.Verb, req, requestID)
	return refusal(err)
}
