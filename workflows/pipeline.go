package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// pipeline runs the steps of one attempt of one operation, records them, tells
// the entity about each, and turns a failure into a compensated PipelineFailure.
type pipeline struct {
	ctx      workflow.Context
	in       contract.PipelineInput
	progress contract.Progress
	steps    []contract.StepRecord
	// batch holds ended steps back for the next step's start signal (one signal a step);
	// pending are those held back.
	batch   bool
	pending []contract.StepRecord
	// local runs the short steps as local activities.
	local bool
	// controls runs approvals and hooks; approved is the plan hash approved in this attempt,
	// and early the plan made on the MR's head before the merge, applied after it.
	controls bool
	approved string
	early    *contract.PlanOutput
	// output is a hook's output for the record of the step that ran it.
	output string
	// verifies records what merges render and verifies the files before terraform or a hook runs;
	// quietVerify runs that step like the local steps, without a start signal of its own.
	verifies, quietVerify bool
	// quietMerge runs a merge with nothing to merge like the local steps (rides): its record,
	// a local activity at most, rides on the next step's start signal.
	quietMerge bool
	// workerStarts has the worker of a step's first activity send the step's start signal (workerStarted);
	// deferStarts lets it leave the start of a step that succeeds within contract.StepStartDelay
	// untold, so every step signal carries every step this run ended (ended).
	workerStarts, deferStarts bool
	// policy asks the policy, with the plan, whether and by whom the operation must be approved.
	policy bool
	// budgets caches whether terraform steps get the stack's budgets (budgeted); nil until asked.
	budgets *bool
	// usesOutputs: the stack's manifests at the pinned revision use .Outputs (pipeline_outputs.go).
	usesOutputs bool
	// drainsReplace runs the drain hook before a deploy's apply that replaces or deletes;
	// workloads are the manifests' workloads the deploy recreates or deletes (Kind/name).
	drainsReplace bool
	workloads     []string
}

func newPipeline(ctx workflow.Context, in contract.PipelineInput) *pipeline {
	p := &pipeline{ctx: ctx, in: in, progress: in.Resume, batch: batchesStepSignals(ctx)}
	p.local = runsShortStepsLocally(ctx)
	p.controls = runsControls(ctx)
	p.verifies, p.quietVerify = verifiesRenders(ctx)
	p.quietMerge = rides(ctx)
	p.workerStarts = startsFromWorker(ctx)
	p.deferStarts = defersStarts(ctx)
	p.policy = p.controls && approvesByPolicy(ctx)
	workflow.Go(ctx, p.relayRefusals)
	p.countStarted()
	return p
}

// localSteps are the steps that run as local activities (see quick).
var localSteps = map[string]bool{contract.Validate: true, contract.ResolveRevision: true, contract.BootstrapSecrets: true,
	contract.ForgetSecrets: true, contract.ConfigDiff: true}

// workerStarted are the steps whose first command is a regular activity: its worker sends the
// step's start signal (internal/workerapp's stepStarts), not the pipeline.
var workerStarted = map[string]bool{contract.OpenMR: true, contract.MergeMR: true, contract.TFInit: true, contract.TFPlan: true,
	contract.TFApply: true, contract.TFDestroy: true, contract.DeployApp: true, contract.RemoveApp: true}

// stepError remembers which step failed.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// run executes one step. A durable step that an earlier attempt finished is skipped;
// fn returns a one-line detail for status.
func (p *pipeline) run(name string, durable bool, fn func(ctx workflow.Context) (string, error)) error {
	if durable && p.progress.Did(name) {
		p.record(contract.StepRecord{Name: name, Status: contract.StepSkipped, Attempt: p.in.Attempt,
			Detail: "done in an earlier attempt", StartedAt: workflow.Now(p.ctx), EndedAt: workflow.Now(p.ctx)})
		return nil
	}
	rec := contract.StepRecord{Name: name, Status: contract.StepRunning, Attempt: p.in.Attempt, StartedAt: workflow.Now(p.ctx)}
	ctx, start := p.ctx, p.startOnWorker(rec)
	if start != nil {
		ctx = workflow.WithValue(ctx, contract.StepStartKey{}, start)
	} else if p.local && p.batch && (localSteps[name] || (name == contract.VerifyRender && p.quietVerify) || (name == contract.MergeMR && p.quietMerge && nothingToMerge(p.progress.MR))) {
		// A local step ends within this workflow task: its start is news to no one, and its
		// record rides on the next step's start signal.
		workflow.SetCurrentDetails(p.ctx, stepDetails(p.in, rec))
	} else {
		p.notify(rec)
	}
	detail, err := fn(ctx)
	if start != nil && !start.Taken && !p.deferStarts {
		// No activity carried the start: the steps it held ride on the next signal instead.
		p.pending = append(start.Event.Ended, p.pending...)
	}
	rec.EndedAt = workflow.Now(p.ctx)
	rec.Output, p.output = p.output, ""
	if err != nil {
		rec.Status, rec.Error = contract.StepFailed, errorMessage(err)
		p.record(rec)
		p.recordStep(rec)
		return &stepError{step: name, err: err}
	}
	rec.Status, rec.Detail = contract.StepDone, detail
	p.record(rec)
	p.recordStep(rec)
	if durable {
		p.progress.Done = append(p.progress.Done, name)
	}
	return nil
}

func (p *pipeline) record(rec contract.StepRecord) {
	p.steps = append(p.steps, rec)
	p.notify(rec)
}

// notify tells the entity; it is best effort because status is also rebuilt from the result.
// A step that ended waits for the next one's start, so a step costs one signal, not two.
func (p *pipeline) notify(rec contract.StepRecord) {
	workflow.SetCurrentDetails(p.ctx, stepDetails(p.in, rec))
	if p.in.ParentID == "" {
		return
	}
	if p.batch && rec.Status != contract.StepRunning {
		p.pending = append(p.pending, rec)
		return
	}
	_ = workflow.SignalExternalWorkflow(p.ctx, p.in.ParentID, "", contract.SignalStep,
		contract.StepEvent{OpID: p.in.OpID, Attempt: p.in.Attempt, Step: rec, Ended: p.ended()})
}

// ended is what the next step signal carries as ended: the steps held back since the last one,
// or every step this run ended where a worker may leave a start untold (its ended steps with it).
func (p *pipeline) ended() []contract.StepRecord {
	out := p.pending
	p.pending = nil
	if p.deferStarts {
		out = append([]contract.StepRecord(nil), p.steps...)
	}
	return out
}

// startOnWorker holds rec's start signal, and the ended steps waiting for one, for the step's
// first activity to carry (contract.StepStart); nil where the pipeline signals itself.
func (p *pipeline) startOnWorker(rec contract.StepRecord) *contract.StepStart {
	if !p.workerStarts || !p.batch || !workerStarted[rec.Name] || p.in.ParentID == "" {
		return nil
	}
	workflow.SetCurrentDetails(p.ctx, stepDetails(p.in, rec))
	return &contract.StepStart{Target: p.in.ParentID, Defer: p.deferStarts,
		Event: contract.StepEvent{OpID: p.in.OpID, Attempt: p.in.Attempt, Step: rec, Ended: p.ended()}}
}

// result is the successful pipeline's outcome; every pipeline calls it once, at its end.
func (p *pipeline) result() contract.PipelineResult {
	p.countFinished(outcomeSucceeded)
	return contract.PipelineResult{Progress: p.progress, Steps: p.steps}
}

// fail runs compensation: it collects what the failed step left behind and
// returns a non-retryable PipelineFailed error that carries the record.
func (p *pipeline) fail(err error) error {
	if na := asNotApproved(err); na != nil {
		p.countFinished(outcomeRejected)
		return p.unapproved(na)
	}
	step := "pipeline"
	var se *stepError
	if errors.As(err, &se) {
		step = se.step
	}
	cancelled := p.cancelled()
	if cancelled && !p.changedAnything() {
		return p.unchanged(step)
	}
	p.countFinished(outcomeFailed)
	// Compensation must run even if the pipeline is being cancelled.
	ctx, _ := workflow.NewDisconnectedContext(p.ctx)
	var leftovers []contract.Leftover
	rec := contract.StepRecord{Name: contract.RecordFailure, Status: contract.StepRunning, Attempt: p.in.Attempt, StartedAt: workflow.Now(ctx)}
	p.notify(rec)
	in := contract.LeftoverInput{Ref: p.in.Ref, Operation: string(p.in.Operation), OpID: p.in.OpID, FailedStep: step, MR: p.progress.MR,
		Revision: p.progress.Revision}
	if r := p.render(); step == contract.VerifyRender && r != nil {
		// Never prepare terraform from the files that failed the check: read the state with slipway's own.
		in.Revision = r.Revision
	}
	if lerr := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActCollectLeftovers, in).Get(ctx, &leftovers); lerr != nil {
		leftovers = append(leftovers, contract.Leftover{Kind: "unknown", ID: step,
			Detail:  "could not inspect leftovers: " + errorMessage(lerr),
			Cleanup: "inspect the GitOps repo, terraform state and the app by hand"})
	}
	if leftovers == nil {
		leftovers = []contract.Leftover{}
	}
	if l, ok := p.hookLeftover(step); ok {
		leftovers = append(leftovers, l)
	}
	if l, ok := p.budgetLeftover(err); ok {
		leftovers = append(leftovers, l)
	}
	if l, ok := renderLeftover(p.in.Ref, err); ok {
		leftovers = append(leftovers, l)
	}
	if cancelled {
		leftovers = append(leftovers, p.cancelLeftover(step))
	}
	rec.Status, rec.EndedAt, rec.Detail = contract.StepDone, workflow.Now(ctx), fmt.Sprintf("%d leftover(s)", len(leftovers))
	p.record(rec)
	f := contract.Failure{Step: step, Error: errorMessage(err), Type: errorType(err), Leftovers: leftovers, At: workflow.Now(ctx)}
	if cancelled {
		f.Error, f.Type = "cancelled at step "+step+": stopped at a safe point", contract.ErrCancelled
	}
	msg := fmt.Sprintf("%s of %s failed at step %s: %s", p.in.Operation, p.in.Ref, step, f.Error)
	return temporal.NewNonRetryableApplicationError(msg, contract.ErrPipelineFailed, nil,
		contract.PipelineFailure{Failure: f, Progress: p.progress, Steps: p.steps})
}

// errorMessage is the innermost application error's message: what the activity said.
func errorMessage(err error) string {
	var se *stepError
	if errors.As(err, &se) {
		err = se.err
	}
	return contract.ErrorText(err)
}

func errorType(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Type()
	}
	var toErr *temporal.TimeoutError
	if errors.As(err, &toErr) {
		return "Timeout"
	}
	return ""
}

// pipelineFailure reads the failure record out of a child's error.
func pipelineFailure(err error) contract.PipelineFailure {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && (appErr.Type() == contract.ErrPipelineFailed || appErr.Type() == contract.ErrNotApproved) && appErr.HasDetails() {
		var pf contract.PipelineFailure
		if appErr.Details(&pf) == nil {
			return pf
		}
	}
	return contract.PipelineFailure{Failure: contract.Failure{Step: "pipeline", Error: errorMessage(err), Type: errorType(err),
		Leftovers: []contract.Leftover{}}}
}
