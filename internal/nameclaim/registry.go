// Package nameclaim keeps which instance holds each derived name (internal/names) in Temporal
// itself: holding a name is running workflows.NameClaimWorkflow under the ID
// name/<kind>/<value>. Temporal runs one workflow per ID at a time, so a claim is atomic across
// every worker and needs no storage of its own; the holder is in the claim's memo. A claim starts
// with a start delay of claimDelay, so no worker runs it while it is held: it is one history
// event until its release terminates it.
package nameclaim

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
)

// claimDelay is a claim's start delay: the longest the server keeps (it caps longer ones at 100
// years). A claim held that long then runs NameClaimWorkflow, which holds it on.
const claimDelay = 100 * 365 * 24 * time.Hour

// maxRaces bounds how often one claim is retried when its holder releases it between our
// start and our look at who holds it.
const maxRaces = 3

// Registry claims and releases names through c, running the claims on taskQueue.
type Registry struct {
	c         client.Client
	taskQueue string
}

// New returns a Registry on c; the workers of taskQueue run the claim workflows.
func New(c client.Client, taskQueue string) *Registry { return &Registry{c: c, taskQueue: taskQueue} }

// Claim takes every claim for owner, or none: a claim another instance holds is a
// *names.TakenError, and what this call took is released again. Claims owner already
// holds are success, so a retried call changes nothing.
func (r *Registry) Claim(ctx context.Context, owner string, claims []names.Claim) error {
	var took []names.Claim
	for _, cl := range claims {
		isNew, err := r.claim(ctx, owner, cl)
		if err != nil {
			if rerr := r.Release(ctx, owner, took); rerr != nil {
				return errors.Join(err, fmt.Errorf("release what this claim took: %w", rerr))
			}
			return err
		}
		if isNew {
			took = append(took, cl)
		}
	}
	return nil
}

// claim takes one claim; isNew is false when owner held it already.
func (r *Registry) claim(ctx context.Context, owner string, cl names.Claim) (isNew bool, err error) {
	id := contract.NameClaimWorkflowID(cl.Kind, cl.Value)
	for range maxRaces {
		_, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:                       id,
			TaskQueue:                r.taskQueue,
			WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
			WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			// Without this the SDK hands back the running claim as if we had started it.
			WorkflowExecutionErrorWhenAlreadyStarted: true,
			Memo:                                     map[string]any{contract.MemoOwner: owner},
			StartDelay:                               claimDelay,
		}, contract.NameClaimWorkflowName, contract.NameClaim{Kind: cl.Kind, Value: cl.Value, Owner: owner})
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if !errors.As(err, &started) {
			if err != nil {
				return false, fmt.Errorf("claim %s: %w", cl, err)
			}
			return true, nil
		}
		holder, running, err := r.Holder(ctx, cl)
		switch {
		case err != nil:
			return false, err
		case !running:
			continue // released since: try again
		case holder == owner:
			return false, nil
		default:
			return false, &names.TakenError{Claim: cl, Holder: holder}
		}
	}
	return false, fmt.Errorf("claim %s: its holder kept changing; try again", cl)
}

// Holder is the instance that holds cl; running is false when nobody does.
func (r *Registry) Holder(ctx context.Context, cl names.Claim) (holder string, running bool, err error) {
	holder, _, running, err = r.lookup(ctx, cl)
	return holder, running, err
}

// lookup finds the running claim on cl: its holder and run.
func (r *Registry) lookup(ctx context.Context, cl names.Claim) (holder, runID string, running bool, err error) {
	d, err := r.c.DescribeWorkflow(ctx, contract.NameClaimWorkflowID(cl.Kind, cl.Value), "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("who holds %s: %w", cl, err)
	}
	if d.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return "", "", false, nil
	}
	if err := d.GetMemoValue(contract.MemoOwner, &holder); err != nil {
		return "", "", false, fmt.Errorf("who holds %s: memo %q: %w", cl, contract.MemoOwner, err)
	}
	return holder, d.WorkflowExecution.RunID, true, nil
}

// Release gives up owner's claims and returns once they have ended, so a claim made after it
// finds the names free. Claims owner does not hold are left alone. A release terminates the
// claim's run: a held claim runs no workflow task that a signal could wake.
func (r *Registry) Release(ctx context.Context, owner string, claims []names.Claim) error {
	for _, cl := range claims {
		if err := r.release(ctx, owner, cl); err != nil {
			return err
		}
	}
	return nil
}

func (r *Registry) release(ctx context.Context, owner string, cl names.Claim) error {
	holder, runID, running, err := r.lookup(ctx, cl)
	if err != nil || !running || holder != owner {
		return err
	}
	id := contract.NameClaimWorkflowID(cl.Kind, cl.Value)
	// The run, not the ID: a claim someone takes after this one ended must not end with it.
	err = r.c.TerminateWorkflow(ctx, id, runID, "released by "+owner)
	var nf *serviceerror.NotFound
	if err == nil || errors.As(err, &nf) { // NotFound: it had ended already
		return nil
	}
	// A claim terminated by hand meanwhile is released too; anything still running is not.
	if _, now, still, lerr := r.lookup(ctx, cl); lerr != nil || (still && now == runID) {
		return fmt.Errorf("release %s: %w", cl, err)
	}
	return nil
}
