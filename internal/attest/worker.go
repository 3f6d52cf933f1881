package attest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/identity"
)

// ChangeVerifiedRequests is the workflow.GetVersion change ID under which a run verifies its
// requests: runs that began before it (no marker) keep accepting unattested ones until they
// continue as new, so their histories replay exactly.
const ChangeVerifiedRequests = "verified-requests"

// SignalRefused is the signal a workflow receives in place of one that carried no valid
// attestation; its argument is a Refusal.
const SignalRefused = "request-refused"

// ErrorType is the application error type of a refused update or start.
const ErrorType = "Unauthenticated"

// ViaWorkflow marks the service attestations workflow code issues (child starts, signals to
// other workflows).
const ViaWorkflow = "workflow"

// Refusal records a signal that was not delivered because it carried no valid attestation.
type Refusal struct {
	Signal string    `json:"signal"`
	Why    string    `json:"why"`
	At     time.Time `json:"at"`
}

// WorkflowService is the actor workflow code signs for.
var WorkflowService = identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: "worker", Via: ViaWorkflow}

// Option configures the worker interceptor.
type Option func(*workerInterceptor)

// WithPayloads decodes signal arguments and attestation headers with dc (the worker's payload
// converter, with its codec), so a signal's digest is the one the sender computed.
func WithPayloads(dc converter.DataConverter) Option {
	return func(w *workerInterceptor) { w.dc = dc }
}

// ExemptScheduled lets runs of these workflow types start without an attestation when they claim
// a Temporal Schedule started them (the drift sweep): a schedule is created by an operator and fires
// on its own. The claim is a search attribute any caller may set, so the run's steps check it with
// the schedule itself (activities.Runs.CheckScheduled) before they read or change anything.
func ExemptScheduled(types ...string) Option {
	return func(w *workerInterceptor) { w.scheduled = append(w.scheduled, types...) }
}

// WorkerInterceptor verifies every start, update and signal a worker handles, and signs the
// child starts and signals its workflows send.
func WorkerInterceptor(k *Keyring, opts ...Option) interceptor.WorkerInterceptor {
	w := &workerInterceptor{k: k, dc: converter.GetDefaultDataConverter()}
	for _, o := range opts {
		o(w)
	}
	return w
}

type workerInterceptor struct {
	interceptor.WorkerInterceptorBase
	k         *Keyring
	dc        converter.DataConverter
	scheduled []string
}

func (w *workerInterceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	in := &inbound{w: w}
	in.Next = next
	return in
}

// inbound is one workflow execution's verifier.
type inbound struct {
	interceptor.WorkflowInboundInterceptorBase
	w *workerInterceptor
	// legacy is set for runs that began before requests were verified; started once that is known.
	legacy, started bool
	// version is the run's version of ChangeVerifiedRequests (RunVersion).
	version workflow.Version
	// authorizes is set for runs whose verified updates the workflow's Authorizer decides too.
	authorizes bool
	authz      authorizerSlot
	// pending holds the signals that arrived before the run's first code ran (with a
	// signal-with-start, or in the first workflow task): they wait for the version.
	pending []pendingSignal
	// q holds the actor of the query being answered (query.go).
	q *querier
	// used are the attestations (by MAC, with their issue time) of the updates this run and the
	// runs it continued accepted, while still young enough to be presented again (used.go).
	used map[string]time.Time
}

type pendingSignal struct {
	ctx workflow.Context
	in  *interceptor.HandleSignalInput
}

type verifiedKey struct{}

type versionKey struct{}

type requestIDKey struct{}

// RequestID is the ID of the update ctx handles; "" outside an update (where the SDK's own
// GetCurrentUpdateInfo would panic).
func RequestID(ctx workflow.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// RunVersion is the version of ChangeVerifiedRequests the run took. The interceptor asks it at
// the top of every run, so a change to workflow code can ride on its newest version instead of a
// GetVersion of its own, which would cost every run a marker and a search attribute upsert.
func RunVersion(ctx workflow.Context) workflow.Version {
	v, _ := ctx.Value(versionKey{}).(workflow.Version)
	return v
}

type authorizerKey struct{}

// Authorizer decides a verified update before its handler runs (the request-level policy); an
// error refuses it, and the handler never runs.
type Authorizer func(ctx workflow.Context, actor identity.Actor, update string, args []any) error

type authorizerSlot struct{ fn Authorizer }

// SetAuthorizer has fn decide every verified update of the run ctx belongs to (call it from
// the workflow function, before handlers run). Runs from before version 2 of
// ChangeVerifiedRequests never call it, so their histories replay.
func SetAuthorizer(ctx workflow.Context, fn Authorizer) {
	if s, ok := ctx.Value(authorizerKey{}).(*authorizerSlot); ok {
		s.fn = fn
	}
}

// Verified returns the verified actor of the update (or start) ctx handles.
func Verified(ctx workflow.Context) (identity.Actor, bool) {
	a, ok := ctx.Value(verifiedKey{}).(identity.Actor)
	return a, ok
}

func (i *inbound) Init(next interceptor.WorkflowOutboundInterceptor) error {
	o := &outbound{k: i.w.k, dc: i.w.dc, in: i}
	o.Next = next
	return i.Next.Init(o)
}

// refused is the error a refused start or update fails with.
func refused(why error) error {
	return temporal.NewNonRetryableApplicationError(
		"refused: no verified identity: "+why.Error()+"; sign in with `slipway login` and send it through `slipway server`, or run it where the slipway key is",
		ErrorType, nil)
}

func (i *inbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	ctx = i.withQuerier(ctx)
	// At the top of every run, so the marker is always the run's first command.
	// Version 1 verifies requests; version 2 also has the workflow's Authorizer decide updates;
	// version 3 is the run's own (RunVersion): its audit records go to the durable log;
	// version 4 also takes the newest branch of the workflows' changes that ride on it, without a marker each;
	// version 5 has the worker of a pipeline step's first activity send the step's start signal;
	// version 6 has an instance created at it hold every dependent it has (none: nothing to tell);
	// version 7 has a step's worker tell its start only once the step ran a while or failed.
	v := workflow.GetVersion(ctx, ChangeVerifiedRequests, workflow.DefaultVersion, 7)
	i.legacy, i.authorizes = v == workflow.DefaultVersion, v >= 2
	i.version = v
	ctx = workflow.WithValue(ctx, versionKey{}, v)
	i.used = readUsed(interceptor.WorkflowHeader(ctx), i.w.dc)
	i.started = true
	for _, p := range i.pending {
		if err := i.HandleSignal(p.ctx, p.in); err != nil {
			return nil, err
		}
	}
	i.pending = nil
	if i.legacy {
		return i.Next.ExecuteWorkflow(ctx, in)
	}
	ctx = workflow.WithValue(ctx, authorizerKey{}, &i.authz)
	info := workflow.GetInfo(ctx)
	// A continued run was started by its own previous run (verified when it first started).
	if info.ContinuedExecutionRunID != "" || i.scheduledRun(ctx, info.WorkflowType.Name) {
		return i.Next.ExecuteWorkflow(ctx, in)
	}
	d, err := Digest(in.Args...)
	if err != nil {
		return nil, refused(err)
	}
	// The start time is the server's, in history: a worker that was down does not age the request.
	actor, err := i.w.k.check(interceptor.WorkflowHeader(ctx), Request{Target: info.WorkflowExecution.ID, Kind: KindStart,
		Name: info.WorkflowType.Name, Digest: d, Now: info.WorkflowStartTime}, i.w.dc)
	if err != nil {
		workflow.GetLogger(ctx).Warn("start refused", "why", err.Error())
		return nil, refused(err)
	}
	return i.Next.ExecuteWorkflow(workflow.WithValue(ctx, verifiedKey{}, actor), in)
}

// scheduledRun reports whether a Temporal Schedule started this run of an exempt type.
func (i *inbound) scheduledRun(ctx workflow.Context, workflowType string) bool {
	if !slices.Contains(i.w.scheduled, workflowType) {
		return false
	}
	by, ok := workflow.GetTypedSearchAttributes(ctx).GetKeyword(temporal.NewSearchAttributeKeyKeyword("TemporalScheduledById"))
	return ok && by != ""
}

// ValidateUpdate accepts an unverified update without running the workflow's validators, so it
// learns nothing of the instance's state and its refusal (in ExecuteUpdate) is kept in history.
func (i *inbound) ValidateUpdate(ctx workflow.Context, in *interceptor.UpdateInput) error {
	if !i.started || i.legacy {
		return i.Next.ValidateUpdate(ctx, in)
	}
	if _, err := i.verifyUpdate(ctx, in); err != nil {
		return nil
	}
	return i.Next.ValidateUpdate(ctx, in)
}

// verifyUpdate returns the attestation of the update ctx handles, once: an attestation an
// earlier update of this run (or of the runs it continued) presented is refused.
func (i *inbound) verifyUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (Attestation, error) {
	d, err := Digest(in.Args...)
	if err != nil {
		return Attestation{}, err
	}
	a, err := i.w.k.covering(interceptor.WorkflowHeader(ctx), Request{Target: workflow.GetInfo(ctx).WorkflowExecution.ID,
		Kind: KindUpdate, Name: in.Name, Digest: d, Now: workflow.Now(ctx)}, i.w.dc)
	if err != nil {
		return Attestation{}, err
	}
	if _, ok := i.used[a.MAC]; ok {
		return Attestation{}, fmt.Errorf("update %q presents an attestation an earlier update used: a copied request acts once", in.Name)
	}
	return a, nil
}

func (i *inbound) ExecuteUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (any, error) {
	if !i.started {
		if err := workflow.Await(ctx, func() bool { return i.started }); err != nil {
			return nil, err
		}
	}
	ctx = workflow.WithValue(ctx, versionKey{}, i.version)
	if u := workflow.GetCurrentUpdateInfo(ctx); u != nil {
		ctx = workflow.WithValue(ctx, requestIDKey{}, u.ID)
	}
	if i.legacy {
		return i.Next.ExecuteUpdate(ctx, in)
	}
	a, err := i.verifyUpdate(ctx, in)
	if err != nil {
		// The handler never runs: the update's failure in history is the record of the refusal.
		return nil, refused(err)
	}
	i.use(a, workflow.Now(ctx))
	actor := a.Actor
	ctx = workflow.WithValue(ctx, verifiedKey{}, actor)
	if i.authorizes && i.authz.fn != nil {
		if err := i.authz.fn(ctx, actor, in.Name, in.Args); err != nil {
			return nil, err
		}
	}
	return i.Next.ExecuteUpdate(ctx, in)
}

func (i *inbound) HandleSignal(ctx workflow.Context, in *interceptor.HandleSignalInput) error {
	if !i.started {
		i.pending = append(i.pending, pendingSignal{ctx: ctx, in: in})
		return nil
	}
	if i.legacy {
		return i.Next.HandleSignal(ctx, in)
	}
	err := i.verifySignal(ctx, in)
	if err == nil {
		return i.Next.HandleSignal(ctx, in)
	}
	// The workflow hears of the refusal instead of the signal, and records it.
	p, perr := i.w.dc.ToPayloads(Refusal{Signal: in.SignalName, Why: err.Error(), At: workflow.Now(ctx)})
	if perr != nil {
		return perr
	}
	workflow.GetLogger(ctx).Warn("signal refused", "signal", in.SignalName, "why", err.Error())
	return i.Next.HandleSignal(ctx, &interceptor.HandleSignalInput{SignalName: SignalRefused, Arg: p})
}

// verifySignal checks the signal's attestation; its argument's digest is over the JSON the
// sender's converter wrote, which is what json.Marshal of the sender's value gave.
func (i *inbound) verifySignal(ctx workflow.Context, in *interceptor.HandleSignalInput) error {
	if in.SignalName == SignalRefused {
		return fmt.Errorf("%s is only ever sent by the worker itself", SignalRefused)
	}
	var raws []any
	for _, p := range in.Arg.GetPayloads() {
		var raw json.RawMessage
		if err := i.w.dc.FromPayloads(&commonpb.Payloads{Payloads: []*commonpb.Payload{p}}, &raw); err != nil {
			return fmt.Errorf("signal %q: its argument is not JSON: %w", in.SignalName, err)
		}
		if raw == nil {
			raw = json.RawMessage("null")
		}
		raws = append(raws, raw)
	}
	d, err := Digest(raws...)
	if err != nil {
		return err
	}
	_, err = i.w.k.check(interceptor.WorkflowHeader(ctx), Request{Target: workflow.GetInfo(ctx).WorkflowExecution.ID,
		Kind: KindSignal, Name: in.SignalName, Digest: d, Now: workflow.Now(ctx)}, i.w.dc)
	return err
}

// outbound signs what workflow code sends. The MAC is computed in workflow code: it is the same
// on every replay given the key ring and workflow.Now, and replay never compares headers anyway.
type outbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	k  *Keyring
	dc converter.DataConverter
	in *inbound
}

// sign adds the service attestation of one request to ctx's outgoing header; it fails only on
// arguments JSON cannot encode, which the send itself would fail on too.
func (o *outbound) sign(ctx workflow.Context, target, kind, name string, args ...any) {
	h := interceptor.WorkflowHeader(ctx)
	if h == nil {
		return
	}
	a, err := o.k.Sign(WorkflowService, target, kind, name, workflow.Now(ctx), args...)
	if err != nil {
		return
	}
	_ = add(h, a, o.dc)
}

func (o *outbound) SignalExternalWorkflow(ctx workflow.Context, workflowID, runID, signalName string, arg any) workflow.Future {
	o.sign(ctx, workflowID, KindSignal, signalName, arg)
	return o.Next.SignalExternalWorkflow(ctx, workflowID, runID, signalName, arg)
}

func (o *outbound) SignalChildWorkflow(ctx workflow.Context, workflowID, signalName string, arg any) workflow.Future {
	o.sign(ctx, workflowID, KindSignal, signalName, arg)
	return o.Next.SignalChildWorkflow(ctx, workflowID, signalName, arg)
}

func (o *outbound) ExecuteChildWorkflow(ctx workflow.Context, childWorkflowType string, args ...any) workflow.ChildWorkflowFuture {
	o.sign(ctx, workflow.GetChildWorkflowOptions(ctx).WorkflowID, KindStart, childWorkflowType, args...)
	return o.Next.ExecuteChildWorkflow(ctx, childWorkflowType, args...)
}
