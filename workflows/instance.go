package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/observe"
	"github.com/slipway-dev/slipway/internal/windows"
)

// InstanceWorkflow is the entity workflow of one instance (ID instance/<tenant>/<name>).
// It owns the state machine, takes operations and decisions as Updates, runs one
// operation at a time as a child pipeline, and continues as new when idle and
// the history grows.
func InstanceWorkflow(ctx workflow.Context, in contract.InstanceInput) error {
	e := newEntity(ctx, in)
	lean := leanWhenParked(ctx)
	e.lean = lean >= 1
	// Every verified update is decided by the policy before its handler runs (verified-requests v2).
	attest.SetAuthorizer(ctx, e.authorize)
	if err := e.register(ctx); err != nil {
		return err
	}
	e.recordLegacyNames(ctx)
	e.upsertSearchAttributes(ctx)
	switch {
	case lean >= 2:
		e.inline = true
		e.openInbox(ctx)
	case e.lean:
		workflow.Go(ctx, e.receiveSignals)
	default:
		workflow.Go(ctx, e.receiveSteps)
		workflow.Go(ctx, e.receiveObservations)
		workflow.Go(ctx, e.receiveGateSignals)
		workflow.Go(ctx, e.receiveApprovals)
		workflow.Go(ctx, e.receiveRefusals)
	}
	for {
		if err := workflow.Await(ctx, func() bool {
			return e.signalled() || e.expiryWake() || (!e.busy && !e.acting && (e.s.State.Final() || e.empty() || e.shouldContinueAsNew(ctx)))
		}); err != nil {
			return err
		}
		if e.expiryWake() {
			e.tickExpiry(ctx)
			continue
		}
		if e.receiveSignal(ctx) {
			continue
		}
		// Let accepted updates (a rejected race, a decision) finish before closing the run.
		if err := workflow.Await(ctx, func() bool { return e.signalled() || workflow.AllHandlersFinished(ctx) }); err != nil {
			return err
		}
		if e.receiveSignal(ctx) {
			continue
		}
		if e.busy || e.acting {
			continue
		}
		e.drainSteps()
		e.observing.drain(ctx)
		e.drainObservations(ctx)
		e.gating.drain(ctx)
		e.drainGateSignals(ctx)
		e.retries.drain(ctx)
		switch {
		case e.s.State.Final(), e.empty():
			e.leaveDependencies(ctx, e.s.Dependencies) // deprovisioned, or its provision abandoned
			return nil
		case e.shouldContinueAsNew(ctx):
			return workflow.NewContinueAsNewError(ctx, contract.InstanceWorkflowName, contract.InstanceInput{Ref: e.s.Ref, State: e.s, Settings: e.s.Settings})
		}
	}
}

// entity is the running instance: its durable state plus what lives only in this run.
type entity struct {
	s       *contract.InstanceState
	busy    bool
	holding string // what holds the instance when it is not an operation (a drift check)
	// lastReady and lastDrifted are what the sinks last heard, so only a change is notified.
	lastReady   string
	lastDrifted bool
	// gatesChanged counts gate changes, so a gated wait wakes on each; cancelled ends that wait.
	gatesChanged int
	cancelled    bool
	watchChan    workflow.ReceiveChannel
	clearedChan  workflow.ReceiveChannel
	opsInRun     int
	// newRunAsked is a new-run request accepted in this run: the run continues as new when idle.
	newRunAsked bool
	stepsChan   workflow.ReceiveChannel
	observeChan workflow.ReceiveChannel
	// lean runs are those that receive signals in one coroutine and upsert only changed search attributes.
	lean bool
	// inline runs receive their signals in the main loop, from inbox (lean version 2).
	inline bool
	inbox  [inboxSize]workflow.ReceiveChannel
	// observing, gating and approving hold the signals receiveSignals took whose handlers wait.
	observing, gating, approving, retries lane
	// stop cancels the running pipeline (cancel-running); nil when none runs.
	stop workflow.CancelFunc
	// teardown is a destroy or deprovision accepted in this run and not ended: no dependent is taken on.
	teardown bool
	// windowOf is where each accepted operation stood in the change windows, by update ID (authorize).
	windowOf map[string]*windows.Status
	// expiryChanged counts changes to the expiry, so its timer is armed again on each.
	expiryChanged int
	clock         expiryClock
	// acting is an operation the workflow starts itself (expiry) between its decision and its start.
	acting bool
}

func newEntity(ctx workflow.Context, in contract.InstanceInput) *entity {
	e := &entity{stepsChan: workflow.GetSignalChannel(ctx, contract.SignalStep),
		observeChan: workflow.GetSignalChannel(ctx, contract.SignalObserved),
		watchChan:   workflow.GetSignalChannel(ctx, contract.SignalWatchReady),
		clearedChan: workflow.GetSignalChannel(ctx, contract.SignalGateCleared)}
	if in.State != nil {
		e.s = in.State // the decoded input stays referenced for the whole run: a copy would be kept twice
		e.lastReady = string(e.condition(lifecycle.CondReady).Status)
		e.lastDrifted = e.s.Drift != nil && e.s.Drift.Drifted
		return e
	}
	info := workflow.GetInfo(ctx)
	e.s = &contract.InstanceState{Ref: in.Ref, State: lifecycle.NoConfiguration, Settings: in.Settings,
		Epoch: epochOf(info.FirstRunID), DependentsKnown: attest.RunVersion(ctx) >= knownDependentsVersion}
	return e
}

// epochOf tells this life of an instance from an earlier one with the same name, so
// MR branches of a re-created instance never collide with the old ones. Run IDs are
// UUIDv7: the leading digits are a timestamp shared by runs started close together,
// so the epoch takes the random tail.
func epochOf(runID string) string {
	id := strings.ReplaceAll(runID, "-", "")
	if len(id) > 10 {
		return id[len(id)-10:]
	}
	return id
}

// empty is an instance that was asked for something but holds nothing: it can close.
func (e *entity) empty() bool {
	return e.s.Started && e.s.State == lifecycle.NoConfiguration
}

func (e *entity) shouldContinueAsNew(ctx workflow.Context) bool {
	if e.newRunAsked {
		return true
	}
	if n := e.s.Settings.ContinueAsNewAfter; n > 0 && e.opsInRun >= n {
		return true
	}
	return workflow.GetInfo(ctx).GetContinueAsNewSuggested()
}

func (e *entity) setState(ctx workflow.Context, st lifecycle.State) {
	if e.s.State == st {
		return
	}
	kv := []any{"instance", e.s.Ref.String(), "from", e.s.State, "to", st}
	if op := e.s.Current; op != nil {
		// The entity runs many operations: its line names the one that moved the state.
		kv = append(kv, logging.KeyOperation, string(op.Kind), logging.KeyOperationID, op.ID)
	}
	workflow.GetLogger(ctx).Info("instance state", kv...)
	e.s.State = st
	e.upsertSearchAttributes(ctx)
}

func (e *entity) upsertSearchAttributes(ctx workflow.Context) {
	u := saUpdates{lean: e.lean}
	if e.lean {
		u.cur = workflow.GetTypedSearchAttributes(ctx)
	}
	u.keyword(contract.SAInstanceState, string(e.s.State), true)
	u.keyword(contract.SAInstanceStack, e.s.Stack, e.s.Stack != "")
	u.keywordList(contract.SAInstanceRelease, releaseList(e.s.Release))
	var operation string
	if e.s.Current != nil {
		operation = string(e.s.Current.Kind)
	}
	u.keyword(contract.SAInstanceOperation, operation, e.s.Current != nil)
	u.keyword(contract.SAInstanceRollout, e.s.Rollout, e.s.Rollout != "")
	var drifted string
	d := e.driftCondition()
	if d != nil {
		drifted = string(d.Status)
	}
	u.keyword(contract.SAInstanceDrifted, drifted, d != nil)
	u.boolean(contract.SAInstanceGated, len(e.s.Gates) > 0)
	u.keyword(contract.SATenant, e.s.Ref.Tenant, true)
	u.keyword(contract.SAInstanceName, e.s.Ref.Name, true)
	u.keyword(contract.SAInstanceReady, string(e.condition(lifecycle.CondReady).Status), true)
	o := e.s.Observed
	observed := o != nil && o.Fingerprint != "" && observe.Observed(e.s.State)
	var fingerprint string
	if observed {
		fingerprint = o.Fingerprint
	}
	u.keyword(contract.SAAppObserved, fingerprint, observed)
	u.boolean(contract.SAInstanceAwaitingApproval, e.s.Approval != nil)
	u.keywordList(contract.SAInstanceDependencies, e.s.Dependencies)
	u.windowOpens(workflow.GetTypedSearchAttributes(ctx), e.s.Waiting)
	u.expiresAt(workflow.GetTypedSearchAttributes(ctx), e.s.Expiry)
	if e.lean {
		if op := e.s.Current; op != nil && e.retryingNow() == nil {
			op.Retrying = nil // its step or operation ended: nothing to carry on
		}
		u.boolean(contract.SAInstanceRetrying, e.retryingNow() != nil) // no upsert unless it changes
	}
	defer e.showDetails(ctx)
	if len(u.updates) > 0 {
		if err := workflow.UpsertTypedSearchAttributes(ctx, u.updates...); err != nil {
			workflow.GetLogger(ctx).Warn("search attributes not upserted", "error", err)
		}
	}
	e.noticeTransitions(ctx)
}

// saUpdates collects an instance's search attribute updates: every one, or (lean) only those
// that change what the run has. Each upserted value is a payload the cached workflow keeps and
// an event in its history, so a parked instance upserts nothing it already has.
type saUpdates struct {
	lean    bool
	cur     temporal.SearchAttributes
	updates []temporal.SearchAttributeUpdate
}

func (u *saUpdates) keyword(k temporal.SearchAttributeKeyKeyword, v string, set bool) {
	if u.lean {
		if old, had := u.cur.GetKeyword(k); had == set && old == v {
			return
		}
	}
	if set {
		u.updates = append(u.updates, k.ValueSet(v))
	} else {
		u.updates = append(u.updates, k.ValueUnset())
	}
}

// boolean sets k to true, or unsets it: the instance's flags are never stored as false.
func (u *saUpdates) boolean(k temporal.SearchAttributeKeyBool, set bool) {
	if u.lean {
		if _, had := u.cur.GetBool(k); had == set {
			return
		}
	}
	if set {
		u.updates = append(u.updates, k.ValueSet(true))
	} else {
		u.updates = append(u.updates, k.ValueUnset())
	}
}

// receiveSteps applies pipeline progress signals to the running operation.
func (e *entity) receiveSteps(ctx workflow.Context) {
	for {
		var ev contract.StepEvent
		if !e.stepsChan.Receive(ctx, &ev) {
			return
		}
		e.applyStep(ev)
		e.showDetails(ctx)
	}
}

func (e *entity) drainSteps() {
	for {
		var ev contract.StepEvent
		if !e.stepsChan.ReceiveAsync(&ev) {
			return
		}
		e.applyStep(ev)
	}
}

func (e *entity) applyStep(ev contract.StepEvent) {
	op := e.s.Current
	if op == nil || op.ID != ev.OpID || op.Attempt != ev.Attempt || op.Result != contract.ResultRunning {
		return
	}
	for _, rec := range append(ev.Ended, ev.Step) {
		op.Step = rec.Name
		op.Steps = putStep(op.Steps, rec)
	}
}

// putStep records rec in place of the same step's running record, or of its own record carried
// by an earlier signal (a run that defers starts sends every ended step each time), or appends it.
func putStep(recs []contract.StepRecord, rec contract.StepRecord) []contract.StepRecord {
	for i := len(recs) - 1; i >= 0; i-- {
		if s := recs[i]; s.Name == rec.Name && s.Attempt == rec.Attempt && (s.Status == contract.StepRunning || s.StartedAt.Equal(rec.StartedAt)) {
			recs[i] = rec
			return recs
		}
	}
	return append(recs, rec)
}

// busyError refuses a request because the instance holds another; the same request may pass later.
func busyError(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, contract.ErrBusy, nil)
}

// notAllowed is the error a validator returns; its type lets clients tell bad requests apart.
func notAllowed(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), "NotAllowed", nil)
}
