package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

// changingSteps are the steps after whose start a cancelled operation may have changed something:
// main (the merge), the infrastructure, the cluster or the secrets.
var changingSteps = map[string]bool{contract.MergeMR: true, contract.TFApply: true, contract.TFDestroy: true,
	contract.DeployApp: true, contract.RemoveApp: true, contract.BootstrapSecrets: true, contract.ForgetSecrets: true, contract.RenderOutputs: true}

// cancelled reports whether the entity cancelled this pipeline (slipway cancel, or PreTerminate):
// the step then failed because of it, whatever its error says (terraform's "execution halted").
func (p *pipeline) cancelled() bool {
	return p.ctx.Err() != nil && cancelsRunning(p.ctx)
}

// changedAnything reports whether this operation may have changed something before it stopped.
func (p *pipeline) changedAnything() bool {
	if p.in.Attempt > 1 || p.progress.Did(contract.MergeMR) {
		return true
	}
	for _, s := range p.steps {
		if changingSteps[s.Name] || hookOf(s.Name) != "" {
			return true
		}
	}
	return false
}

// unchanged ends a pipeline cancelled before it changed anything: the MR it opened is closed and
// the instance goes back to where it was (the entity reads a Cancelled failure with no leftovers).
func (p *pipeline) unchanged(step string) error {
	ctx, _ := workflow.NewDisconnectedContext(p.ctx)
	p.countFinished(outcomeFailed)
	f := contract.Failure{Step: step, Error: fmt.Sprintf("cancelled at step %s before anything was changed", step), Type: contract.ErrCancelled,
		Leftovers: []contract.Leftover{}, At: workflow.Now(ctx)}
	if mr := p.progress.MR; mr != nil && mr.State == forge.StateOpen && !mr.NoChanges {
		var closed forge.MergeRequest
		if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActCloseMR, *mr).Get(ctx, &closed); err == nil {
			p.progress.MR = &closed
		} else {
			f.Leftovers = append(f.Leftovers, contract.Leftover{Kind: "merge-request", ID: mr.ID,
				Detail: "could not be closed after the cancel", Cleanup: "close it and delete its branch " + mr.Branch})
		}
	}
	return temporal.NewNonRetryableApplicationError(f.Error, contract.ErrPipelineFailed, nil,
		contract.PipelineFailure{Failure: f, Progress: p.progress, Steps: p.steps})
}

// cancelLeftover names where a cancelled operation stopped: what finished before is in place.
func (p *pipeline) cancelLeftover(step string) contract.Leftover {
	var merged string
	if mr := p.progress.MR; mr != nil && mr.State == forge.StateMerged {
		merged = fmt.Sprintf("; its config merged as %s is on main", short(mr.MergeSHA))
	}
	return contract.Leftover{Kind: contract.LeftoverCancelled, ID: step,
		Detail: fmt.Sprintf("%s was cancelled at step %s: what finished before is in place (terraform saved its state)%s",
			p.in.Operation, step, merged),
		Cleanup: fmt.Sprintf("slipway retry %s to finish it, or destroy/deprovision it to tear down what the state holds", p.in.Ref)}
}
