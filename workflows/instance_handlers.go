package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// maxConfigBytes bounds a config carried in an update; stacks take parameters, not blobs.
const maxConfigBytes = 256 << 10

func (e *entity) register(ctx workflow.Context) error {
	status := func(req contract.StatusRequest) (contract.Status, error) {
		st, err := e.status(req)
		// The plan and its hash are for those who may approve it: the query's verified actor.
		if actor, ok := queryActor(ctx); err == nil && (!ok || (e.s.Approval != nil && !mayApprove(actor, e.s.Approval))) {
			redactApprovals(&st)
		}
		return st, err
	}
	if err := workflow.SetQueryHandler(ctx, contract.QueryStatus, status); err != nil {
		return err
	}
	// The fencing token every state-changing step checks; a query adds no command.
	if err := workflow.SetQueryHandler(ctx, contract.QueryCurrentPipeline, e.currentPipeline); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandler(ctx, contract.UpdateRefresh, e.refresh); err != nil {
		return err
	}
	// A new run is asked for only by the retirement of a workflow version; old runs never saw the
	// update, so registering it changes no command and needs no GetVersion.
	err := workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateNewRun, e.newRun,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error { return e.admitNewRun() }})
	if err != nil {
		return err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateCheckDrift, e.checkDrift,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.DriftRequest) error { return e.admitDriftCheck() }})
	if err != nil {
		return err
	}
	if err := e.registerGates(ctx); err != nil {
		return err
	}
	if err := e.registerApprovals(ctx); err != nil {
		return err
	}
	if err := e.registerProtection(ctx); err != nil {
		return err
	}
	if err := e.registerExpiry(ctx); err != nil {
		return err
	}
	for _, op := range lifecycle.AllOperations {
		op := op
		err := workflow.SetUpdateHandlerWithOptions(ctx, string(op),
			func(ctx workflow.Context, req contract.OperationRequest) (contract.OperationResult, error) {
				return e.operate(ctx, op, req)
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.OperationRequest) error {
				return e.admitOperation(op, req)
			}})
		if err != nil {
			return err
		}
	}
	for _, d := range []lifecycle.Decision{lifecycle.DecisionRetry, lifecycle.DecisionResolve, lifecycle.DecisionAbandon} {
		d := d
		err := workflow.SetUpdateHandlerWithOptions(ctx, string(d),
			func(ctx workflow.Context, req contract.DecisionRequest) (contract.OperationResult, error) {
				return e.decide(ctx, d, req)
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.DecisionRequest) error {
				return e.admitDecision(d, req)
			}})
		if err != nil {
			return err
		}
	}
	return nil
}

// admitOperation rejects, before acceptance, anything the current state does not allow. It is the
// home of request admission: every request passes it, whether from the CLI, the server, a webhook,
// a rollout or the Temporal UI. Config is checked by the validate activity (operate, the pipeline).
func (e *entity) admitOperation(op lifecycle.Operation, req contract.OperationRequest) error {
	err := lifecycle.Admit(e.admission(), op)
	var busy *lifecycle.BusyError
	if errors.As(err, &busy) {
		return busyError(err.Error())
	}
	if err != nil {
		return notAllowed("%s", err)
	}
	if err := e.admitTeardown(op); err != nil {
		return err
	}
	if err := e.admitProtected(op); err != nil {
		return err
	}
	if req.Rollout != "" && len(e.s.Gates) > 0 {
		// A rollout's deploy would wait at the gates and hold its whole batch.
		return notAllowed("%s is gated (%s): the rollout skips it; remove the gates, then deploy it", e.s.Ref, e.gateNames())
	}
	if err := contract.CheckPriority("priority", req.Priority); err != nil {
		return notAllowed("%s: %s", e.s.Ref, err)
	}
	if op == lifecycle.OpProvision && strings.TrimSpace(req.ConfigYAML) == "" {
		return notAllowed("%s: provision needs the instance config (configYAML)", e.s.Ref)
	}
	if op == lifecycle.OpDeprovision && !req.Confirm {
		return notAllowed("%s: deprovision is final: it destroys the infrastructure and removes the config; confirm it (confirm: true, CLI --yes)", e.s.Ref)
	}
	if err := e.admitOverrideWindow(op, req); err != nil {
		return err
	}
	if req.DeployTimeout < 0 {
		return notAllowed("%s: deployTimeout must not be negative", e.s.Ref)
	}
	if req.Recreate {
		if err := lifecycle.AdmitRecreate(e.s.Ref.String(), e.s.State, op, req.ConfigYAML != ""); err != nil {
			return notAllowed("%s", err)
		}
	}
	if req.Adopt != "" && (op != lifecycle.OpProvision || !commitRE.MatchString(req.Adopt)) {
		return notAllowed("%s: adopt: a provision's commit on main (hex), not %q for %s", e.s.Ref, req.Adopt, op)
	}
	if len(req.ConfigYAML) > maxConfigBytes {
		return notAllowed("%s: configYAML is %d bytes, more than the %d allowed", e.s.Ref, len(req.ConfigYAML), maxConfigBytes)
	}
	return nil
}

func (e *entity) admitDecision(d lifecycle.Decision, req contract.DecisionRequest) error {
	if e.busy {
		if d == lifecycle.DecisionRetry && e.retryingNow() != nil && req.ForceUnlock == "" && !req.SkipHook && !req.AcceptRender {
			return nil // its Retrying step is tried at once (retryNow)
		}
		return notAllowed("%s is busy: %s; %s needs a failed operation, or a step that is Retrying", e.s.Ref, e.runningLine(), d)
	}
	if !e.s.State.Failed() || e.s.Current == nil {
		return notAllowed("%s: %s is only allowed in a <Step>Failed state; the instance is %s", e.s.Ref, d, e.s.State)
	}
	if d != lifecycle.DecisionRetry && strings.TrimSpace(req.Reason) == "" {
		return notAllowed("%s: %s needs a reason (--reason): every decision is recorded with who made it and why", e.s.Ref, d)
	}
	if req.ForceUnlock != "" {
		if err := e.admitForceUnlock(d, req); err != nil {
			return err
		}
	}
	if req.SkipHook {
		if err := e.admitSkipHook(d, req); err != nil {
			return err
		}
	}
	if req.AcceptRender {
		if err := e.admitAcceptRender(d, req); err != nil {
			return err
		}
	}
	if d == lifecycle.DecisionResolve && req.To != "" {
		op := e.s.Current
		if req.To != op.From && req.To != op.Kind.Done(op.From) {
			return notAllowed("%s: resolve --to must be %s (the last good state) or %s (what %s would have reached), not %q",
				e.s.Ref, op.From, op.Kind.Done(op.From), op.Kind, req.To)
		}
	}
	return nil
}

// admitForceUnlock accepts only a lock the failed operation's leftovers name.
func (e *entity) admitForceUnlock(d lifecycle.Decision, req contract.DecisionRequest) error {
	if d != lifecycle.DecisionResolve {
		return notAllowed("%s: forceUnlock (--force-unlock) goes with resolve, not %s", e.s.Ref, d)
	}
	if req.To != "" {
		return notAllowed("%s: resolve --force-unlock resumes the operation; it does not take --to", e.s.Ref)
	}
	var ids []string
	if f := e.s.Current.Failure; f != nil {
		for _, l := range f.Leftovers {
			if l.Kind == contract.LeftoverLock {
				if l.ID == req.ForceUnlock {
					return nil
				}
				ids = append(ids, l.ID)
			}
		}
	}
	if len(ids) == 0 {
		return notAllowed("%s: --force-unlock %q: the failed operation left no terraform-lock leftover", e.s.Ref, req.ForceUnlock)
	}
	return notAllowed("%s: --force-unlock %q is not the lock the failed operation left; its terraform-lock leftover is %s",
		e.s.Ref, req.ForceUnlock, strings.Join(ids, ", "))
}

// admission is the instance as lifecycle.Admit needs it: what holds it and whether that can be stopped.
func (e *entity) admission() lifecycle.Admission {
	a := lifecycle.Admission{Ref: e.s.Ref.String(), State: e.s.State, CanStop: e.canStop()}
	switch {
	case e.busy && e.s.Waiting != nil && e.s.Waiting.Window != nil:
		a.Holder = lifecycle.WindowHolder(a.Ref, e.s.Waiting.Operation, *e.s.Waiting.Window, e.s.Waiting.Since)
	case e.busy && e.s.Waiting != nil:
		a.Holder = lifecycle.GateHolder(a.Ref, e.s.Waiting.Operation, e.gateNames(), e.s.Waiting.Since)
	case e.busy:
		a.Holder = &lifecycle.Holder{What: e.runningLine(), Remedy: "send it again when the running operation ends"}
	}
	return a
}

func (e *entity) runningLine() string {
	if e.holding != "" {
		return e.holding + " is running"
	}
	op := e.s.Current
	if op == nil || op.Result != contract.ResultRunning {
		return "an operation is starting"
	}
	if op.Step != "" {
		return fmt.Sprintf("%s %s is running (step %s)", op.Kind, op.ID, op.Step)
	}
	return fmt.Sprintf("%s %s is running", op.Kind, op.ID)
}

// operate runs one requested operation to its end.
func (e *entity) operate(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest) (contract.OperationResult, error) {
	// Two updates accepted in one workflow task both passed their validators; only the first runs.
	if err := e.admitOperation(kind, req); err != nil {
		return contract.OperationResult{}, err
	}
	window := e.takeWindow(ctx)
	if tearsDown(kind) {
		// From here no dependent is taken on: the teardown and a registration are decided in turn.
		e.teardown = true
		defer func() { e.teardown = false }()
	}
	if e.busy {
		if err := e.preTerminate(ctx, kind, req); err != nil {
			return contract.OperationResult{}, err
		}
	}
	e.busy = true
	defer func() { e.busy = false }()
	e.s.Started = true
	var valid contract.ValidateOutput
	if req.ConfigYAML != "" && (kind != lifecycle.OpPlan || validatesPlans(ctx)) {
		// Bad input changes nothing whichever way it came (a webhook, a rollout, the UI skip the client's
		// check): validate before the state moves; the output places and gates the pipeline.
		in := contract.ValidateInput{Ref: e.s.Ref, ConfigYAML: req.ConfigYAML, DeployedRevision: e.s.DeployedRevision}
		if err := quick(ctx, runsShortStepsLocally(ctx), contract.ActValidateConfig, in).Get(ctx, &valid); err != nil {
			return contract.OperationResult{}, err
		}
	}
	pool := e.s.ControlPlane
	if req.ConfigYAML != "" && kind != lifecycle.OpPlan {
		pool = valid.ControlPlane
	}
	if pool != "" {
		// Refused before anything changes: an unknown pool, or one that would take itself down.
		in := contract.ControlPlaneInput{Ref: e.s.Ref, Operation: string(kind), Pool: pool}
		if err := quick(ctx, true, contract.ActCheckControlPlane, in).Get(ctx, nil); err != nil {
			return contract.OperationResult{}, err
		}
	}
	if req.ConfigYAML != "" {
		e.recordDependencies(ctx, kind, valid)
		e.recordProtection(ctx, kind, req, valid)
		if kind == lifecycle.OpProvision || kind == lifecycle.OpDeploy {
			e.s.Labels = valid.Labels // state only, no command: change windows select by them from now on
		}
		if err := e.recordExpiry(ctx, kind, req, valid); err != nil {
			return contract.OperationResult{}, err
		}
	}
	if kind == lifecycle.OpProvision || kind == lifecycle.OpDeploy {
		if res, held := e.gated(ctx, kind, req, valid.Gates); held {
			return res, nil
		}
	}
	if res, held := e.held(ctx, kind, req, e.awaitWindow(ctx, kind, req, window)); held {
		return res, nil
	}
	if kind == lifecycle.OpProvision {
		if err := e.claimNames(ctx); err != nil {
			return contract.OperationResult{}, err
		}
	} else {
		e.claimRecordedNames(ctx, false) // an instance parked since before names were claimed
	}
	e.s.Seq++
	e.opsInRun++
	op := &contract.Operation{
		ID: fmt.Sprintf("%d-%s", e.s.Seq, e.s.Epoch), Kind: kind, RequestID: requestID(ctx),
		Actor: req.Actor, From: e.s.State, Attempt: 1, Result: contract.ResultRunning, ConfigYAML: req.ConfigYAML, Adopt: req.Adopt,
		Timeout: req.DeployTimeout, StartedAt: workflow.Now(ctx), Rollout: req.Rollout, Priority: req.Priority, ControlPlane: pool,
		Recreate: req.Recreate, To: req.To,
	}
	if a, ok := verifiedActor(ctx); ok {
		op.Requester = &a
	}
	if req.Rollout != "" {
		e.s.Rollout = req.Rollout
	}
	e.pushCurrent(op)
	e.setState(ctx, kind.Running(e.s.State))
	return e.execute(ctx, op), nil
}

// currentPipeline is the fencing token of the operation running now (contract.PipelineRun).
func (e *entity) currentPipeline() (contract.PipelineRun, error) {
	op := e.s.Current
	if op == nil || op.Result != contract.ResultRunning || op.Pipeline == "" {
		return contract.PipelineRun{}, nil
	}
	return contract.PipelineRun{Workflow: op.Pipeline, Run: op.PipelineRun, Running: true}, nil
}

// pushCurrent makes op the current operation and files the previous one in history.
func (e *entity) pushCurrent(op *contract.Operation) {
	if prev := e.s.Current; prev != nil {
		e.s.History = append(e.s.History, prev.Summary())
		if len(e.s.History) > historyKept {
			e.s.History = e.s.History[len(e.s.History)-historyKept:]
		}
	}
	e.s.Current = op
}

// execute runs the current attempt of op as a child pipeline and applies its outcome.
func (e *entity) execute(ctx workflow.Context, op *contract.Operation) contract.OperationResult {
	op.Pipeline, op.PipelineRun = contract.PipelineWorkflowID(e.s.Ref, op.Kind, op.ID, op.Attempt), ""
	in := contract.PipelineInput{
		Ref: e.s.Ref, Operation: op.Kind, OpID: op.ID, Attempt: op.Attempt,
		ParentID: workflow.GetInfo(ctx).WorkflowExecution.ID, ConfigYAML: op.ConfigYAML,
		DeployedRevision: e.s.DeployedRevision, Settings: e.s.Settings, Resume: op.Progress, From: op.From, Render: e.s.Render,
		Requester: op.Requester, Stack: e.s.Stack, Recreate: op.Recreate, Adopt: op.Adopt, To: op.To,
	}
	if op.Timeout > 0 {
		in.Settings.DeployTimeout = op.Timeout
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            op.Pipeline,
		TaskQueue:             controlplane.TaskQueue(workflow.GetInfo(ctx).TaskQueueName, op.ControlPlane),
		TypedSearchAttributes: pipelineSearchAttributes(e.s.Ref),
		StaticSummary:         pipelineSummary(e.s.Ref, op),
		// A person's request ahead of a rollout's, a rollout's ahead of a drift sweep's; the tenant is the
		// fairness key. The steps inherit it (the SDK does not replay it: no version needed).
		Priority: contract.TaskPriority(cmp.Or(op.Priority, contract.OperationPriority(op.Rollout)), e.s.Ref.Tenant),
		// A cancel (cancel-running) waits for the pipeline's compensation to record where it stopped.
		WaitForCancellation: true,
	})
	cctx, e.stop = workflow.WithCancel(cctx)
	var res contract.PipelineResult
	child := workflow.ExecuteChildWorkflow(cctx, contract.PipelineName(op.Kind), in)
	// The run that started is the only one that may act (its start event is in history already,
	// so waiting for it adds no command); a failed start shows in the result below.
	var run workflow.Execution
	if child.GetChildWorkflowExecution().Get(ctx, &run) == nil {
		op.PipelineRun = run.RunID
	}
	err := child.Get(ctx, &res)
	e.stop = nil
	e.drainSteps()
	e.s.Approval = nil // whatever ended the pipeline (even a termination) ended its wait
	if r := pipelineRender(res, err); r != nil {
		e.s.Render = r // main holds that merge now, whatever happened after it
	}
	op.EndedAt = workflow.Now(ctx)
	if err != nil && errorType(err) == contract.ErrNotApproved {
		return e.endUnapproved(ctx, op, pipelineFailure(err))
	}
	if err != nil && e.stopped(ctx, op, pipelineFailure(err)) {
		return e.result(op)
	}
	if err != nil {
		pf := pipelineFailure(err)
		op.Result, op.Failure, op.Progress = contract.ResultFailed, &pf.Failure, pf.Progress
		op.Step = pf.Failure.Step
		op.Steps = mergeSteps(op.Steps, op.Attempt, pf.Steps)
		e.setState(ctx, op.Kind.Failed(op.From))
		e.notify(ctx, notify.KindFailed, fmt.Sprintf("%s of %s failed at step %s: %s", op.Kind, e.s.Ref, pf.Failure.Step, pf.Failure.Error),
			func(ev *notify.Event) { ev.Step = pf.Failure.Step })
		e.tellWatchersFailed(ctx, op)
		e.tellRollout(ctx, op)
		return e.result(op)
	}
	op.Result, op.Failure, op.Progress, op.Plan, op.Diff = contract.ResultSucceeded, nil, res.Progress, res.Plan, res.Diff
	op.Step = ""
	op.Steps = mergeSteps(op.Steps, op.Attempt, res.Steps)
	outputsBefore := e.s.Outputs
	e.applySuccess(op)
	e.setState(ctx, op.Kind.Done(op.From))
	e.releaseNames(ctx)
	e.notifyDependents(ctx, op, outputsBefore)
	e.tellRollout(ctx, op)
	return e.result(op)
}

// mergeSteps replaces this attempt's signalled steps with the pipeline's own record.
func mergeSteps(have []contract.StepRecord, attempt int, final []contract.StepRecord) []contract.StepRecord {
	out := make([]contract.StepRecord, 0, len(have)+len(final))
	for _, s := range have {
		if s.Attempt != attempt {
			out = append(out, s)
		}
	}
	return append(out, final...)
}

func (e *entity) result(op *contract.Operation) contract.OperationResult {
	return contract.OperationResult{OperationID: op.ID, Kind: op.Kind, Result: op.Result, State: e.s.State,
		Failure: op.Failure, Plan: op.Plan, Diff: op.Diff, Revision: e.s.Revision}
}

// tellRollout tells the rollout that sent op how it ended. Only requests from a rollout carry
// one, so histories from before rollouts never reach the signal.
func (e *entity) tellRollout(ctx workflow.Context, op *contract.Operation) {
	if op.Rollout == "" {
		return
	}
	d := contract.RolloutInstanceDone{Ref: e.s.Ref, OpID: op.ID, Attempt: op.Attempt, Result: op.Result,
		State: string(e.s.State), Ready: string(e.condition(lifecycle.CondReady).Status)}
	if op.Failure != nil {
		d.Error = fmt.Sprintf("at step %s: %s", op.Failure.Step, op.Failure.Error)
	}
	// A rollout aborted meanwhile is gone; its instance has nothing to wait for.
	_ = workflow.SignalExternalWorkflow(ctx, op.Rollout, "", contract.SignalRolloutInstance, d).Get(ctx, nil)
}

// admitSkipHook accepts resolve --skip-hook only for an operation that failed in a hook.
func (e *entity) admitSkipHook(d lifecycle.Decision, req contract.DecisionRequest) error {
	if d != lifecycle.DecisionResolve {
		return notAllowed("%s: skipHook (--skip-hook) goes with resolve, not %s", e.s.Ref, d)
	}
	if req.To != "" || req.ForceUnlock != "" {
		return notAllowed("%s: resolve --skip-hook resumes the operation past its hook; it takes neither --to nor --force-unlock", e.s.Ref)
	}
	f := e.s.Current.Failure
	if f == nil || hookOf(f.Step) == "" {
		step := "none"
		if f != nil {
			step = f.Step
		}
		return notAllowed("%s: --skip-hook: the operation did not fail in a hook (it failed at step %s)", e.s.Ref, step)
	}
	return nil
}

// admitNewRun takes a new-run request only while the instance holds nothing: a run never ends
// under an operation, a drift check or an approval wait.
func (e *entity) admitNewRun() error {
	if e.busy {
		return busyError(fmt.Sprintf("%s is busy: %s; new-run is rejected, not queued — send it again when the running operation ends",
			e.s.Ref, e.runningLine()))
	}
	return nil
}

// newRun marks the run to continue as new; the main loop does it once the update has finished.
func (e *entity) newRun(ctx workflow.Context) (contract.NewRunResult, error) {
	e.newRunAsked = true
	return contract.NewRunResult{EndedRun: workflow.GetInfo(ctx).WorkflowExecution.RunID}, nil
}
