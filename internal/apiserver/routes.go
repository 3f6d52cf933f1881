package apiserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// The API's bodies. The token is the actor: what a request says of its sender (its actor field)
// is only a note, which the workers record beside the attested person.
type (
	// OperationBody is POST .../operations/{op} (create deploy plan archive destroy deprovision).
	OperationBody struct {
		RequestID string                    `json:"requestId,omitempty"`
		Request   contract.OperationRequest `json:"request"`
	}
	// DecisionBody is POST .../decisions/{decision} (retry resolve abandon).
	DecisionBody struct {
		RequestID string                   `json:"requestId,omitempty"`
		Request   contract.DecisionRequest `json:"request"`
	}
	// Accepted answers an operation or decision a worker accepted.
	Accepted struct {
		Instance  string `json:"instance"`
		Request   string `json:"request"` // the operation or decision
		RequestID string `json:"requestId"`
	}
	// RequestState answers GET .../requests/{id}: Result once Done, and the status now.
	RequestState struct {
		Done   bool                      `json:"done"`
		Result *contract.OperationResult `json:"result,omitempty"`
		Status *contract.Status          `json:"status,omitempty"`
	}
	// DriftScheduleBody is POST /v1/drift/schedules.
	DriftScheduleBody struct {
		ID    string              `json:"id"`
		Every time.Duration       `json:"every"`
		Scope contract.DriftScope `json:"scope"`
	}
	// RolloutStarted answers POST /v1/rollouts: the plan it started with.
	RolloutStarted struct {
		Spec contract.RolloutSpec `json:"spec"`
		Plan contract.RolloutPlan `json:"plan"`
	}
)

// componentOnly refuses a field only slipway's own components set: a person setting it would
// speak for them (what, naming the component).
func componentOnly(field, what string) error {
	return badRequest("%s: only slipway sets it (%s); a person may not", field, what)
}

// maxWait bounds a long poll for a request's end: under the write timeout, so the answer gets out.
const maxWait = 20 * time.Second

func (s *Server) routes() {
	const inst = "/v1/instances/{tenant}/{name}"
	s.handle("GET /v1/openapi.json", s.openAPI)
	s.handle("GET /v1/whoami", func(_ context.Context, a identity.Actor, _ *http.Request) (int, any, error) {
		return http.StatusOK, a, nil
	})
	s.handle("POST "+inst+"/operations/{op}", s.operation)
	s.handle("POST "+inst+"/decisions/{decision}", s.decision)
	s.handle("GET "+inst+"/requests/{id}", s.request)
	s.handle("POST "+inst+"/approvals/{verb}", s.approval)
	s.handle("POST "+inst+"/gates/{verb}", s.gate)
	s.handle("POST "+inst+"/cancel", s.gate)
	s.handle("POST "+inst+"/protect", s.protect)
	s.handle("POST "+inst+"/unprotect", s.protect)
	s.handle("POST "+inst+"/extend", s.extend)
	s.handle("GET "+inst+"/status", s.status)
	s.handle("POST "+inst+"/refresh", s.refresh)
	s.handle("GET "+inst+"/secrets", s.secrets)
	s.handle("GET "+inst+"/events", s.events)
	s.handle("GET /v1/instances", s.list)
	s.handle("GET /v1/stacks", s.stacks)
	s.handle("GET /v1/stacks/{stack}/schema", s.stackSchema)
	s.handle("GET /v1/stacks/{stack}/counts", s.stackCounts)
	s.handle("GET /v1/deliveries", s.deliveries)
	s.handle("GET /v1/audit", s.audit)
	s.handle("GET /v1/drift", s.drifted)
	s.handle("POST /v1/drift/check", s.driftCheck)
	s.handle("POST /v1/drift/schedules", s.driftSchedule)
	s.handle("DELETE /v1/drift/schedules/{id}", s.driftUnschedule)
	s.handle("POST /v1/rollouts/plan", s.rolloutPlan)
	s.handle("POST /v1/rollouts", s.rolloutStart)
	s.handle("POST /v1/rollouts/{id}/{verb}", s.rolloutControl)
	s.handle("POST /v1/rollouts/{id}/undo", s.rolloutUndo)
	s.handle("GET /v1/stacks/{stack}/releases", s.stackReleases)
	s.handle("POST /v1/stacks/{stack}/releases", s.stackRelease)
	s.handle("POST /v1/stacks/{stack}/channels/{channel}", s.stackChannel)
	s.handle("POST /v1/stacks/{stack}/deadlines", s.stackDeadline)
	s.handle("GET /v1/stacks/{stack}/status", s.stackStatus)
	s.handle("POST /v1/stacks/{stack}/previews", s.stackPreview)
	s.handle("GET /v1/stacks/{stack}/previews/{id}", s.previewShow)
}

// accepting bounds how long a request waits for a worker to accept it.
func (s *Server) accepting(ctx context.Context, send func(ctx context.Context) (*client.Handle, error)) (*client.Handle, error) {
	actx, cancel := context.WithTimeout(ctx, s.o.AcceptTimeout)
	defer cancel()
	h, err := send(actx)
	if err != nil && errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, &NoWorkerError{Message: fmt.Sprintf("no slipway worker accepted the request within %s on task queue %q", s.o.AcceptTimeout, s.o.Client.TaskQueue)}
	}
	return h, err
}

// denial returns the worker's refusal of an accepted request the policy denies. The worker decides
// once the update is accepted, so the acceptance alone does not say; when the server's copy of
// the policy expects a deny, it waits (at most the accept timeout) for the worker's decision,
// which the instance records, and answers with it. Server and workers load the same policy.
func (s *Server) denial(ctx context.Context, c Check, h *client.Handle) error {
	ok, _, _, err := s.o.Authorize(ctx, c)
	if err != nil || ok {
		return nil // the worker decides alone; the request is accepted
	}
	wctx, cancel := context.WithTimeout(ctx, s.o.AcceptTimeout)
	defer cancel()
	if _, err := h.Get(wctx); client.IsRefused(err) {
		return err
	}
	return nil
}

// bounded runs an update that answers at once when a worker takes it (approve, gates, refresh)
// within the accept timeout: with no worker it would hold the connection past the write timeout.
func (s *Server) bounded(ctx context.Context, send func(ctx context.Context) error) error {
	_, err := s.accepting(ctx, func(ctx context.Context) (*client.Handle, error) { return nil, send(ctx) })
	return err
}

func (s *Server) operation(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	op, ok := lifecycle.ParseOperation(r.PathValue("op"))
	if !ok {
		return 0, nil, badRequest("op: %q is not one of create, deploy, plan, archive, destroy, deprovision", r.PathValue("op"))
	}
	var body OperationBody
	if err := decode(r, &body); err != nil {
		return 0, nil, err
	}
	switch {
	case op == lifecycle.OpProvision && body.Request.ConfigYAML == "":
		return 0, nil, badRequest("request.configYAML: create needs the instance file")
	case op == lifecycle.OpDeprovision && !body.Request.Confirm:
		return 0, nil, badRequest("request.confirm: deprovision of %s is final; confirm it", ref)
	case body.Request.DeployTimeout < 0:
		return 0, nil, badRequest("request.deployTimeout: %s must not be negative", body.Request.DeployTimeout)
	case contract.CheckPriority("request.priority", body.Request.Priority) != nil:
		return 0, nil, badRequest("%s", contract.CheckPriority("request.priority", body.Request.Priority))
	case body.Request.Rollout != "":
		return 0, nil, componentOnly("request.rollout", "a rollout's deploys")
	case body.Request.Adopt != "":
		return 0, nil, componentOnly("request.adopt", "the webhook's create of a pushed config")
	}
	st, err := s.o.Client.Precheck(ctx, ref, op, body.Request)
	if err != nil {
		return 0, nil, err
	}
	c := Check{Actor: a, Operation: string(op), Tenant: ref.Tenant, Name: ref.Name, Waits: true, Request: body.Request, Instances: []string{ref.String()}}
	if st != nil {
		c.State, c.Stack = string(st.State), st.Stack
		if op != lifecycle.OpPlan {
			c.NextState = string(op.Done(st.State))
		}
	}
	h, err := s.accepting(ctx, func(ctx context.Context) (*client.Handle, error) {
		return s.o.Client.Submit(ctx, ref, op, body.Request, body.RequestID)
	})
	if err != nil {
		return 0, nil, err
	}
	if err := s.denial(ctx, c, h); err != nil {
		return 0, nil, err
	}
	return http.StatusAccepted, Accepted{Instance: ref.String(), Request: string(op), RequestID: h.RequestID}, nil
}

func (s *Server) decision(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	d, ok := lifecycle.ParseDecision(r.PathValue("decision"))
	if !ok {
		return 0, nil, badRequest("decision: %q is not one of retry, resolve, abandon", r.PathValue("decision"))
	}
	var body DecisionBody
	if err := decode(r, &body); err != nil {
		return 0, nil, err
	}
	h, err := s.accepting(ctx, func(ctx context.Context) (*client.Handle, error) {
		return s.o.Client.Decide(ctx, ref, d, body.Request, body.RequestID)
	})
	if err != nil {
		return 0, nil, err
	}
	c := Check{Actor: a, Operation: string(d), Tenant: ref.Tenant, Name: ref.Name, Waits: true, Request: body.Request, Instances: []string{ref.String()}}
	if st, err := s.o.Client.Status(ctx, ref, contract.StatusRequest{}); err == nil {
		c.State, c.Stack = string(st.State), st.Stack
	}
	if err := s.denial(ctx, c, h); err != nil {
		return 0, nil, err
	}
	return http.StatusAccepted, Accepted{Instance: ref.String(), Request: string(d), RequestID: h.RequestID}, nil
}

// request long-polls a request's end (at most ?wait=, up to maxWait) and answers with the
// instance's status, so a CLI that has only the server shows the steps as they go.
func (s *Server) request(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	wait := time.Duration(0)
	if v := r.URL.Query().Get("wait"); v != "" {
		if wait, err = time.ParseDuration(v); err != nil || wait < 0 {
			return 0, nil, badRequest("wait: %q is not a duration such as 20s", v)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, min(wait, maxWait))
	defer cancel()
	var out RequestState
	res, err := s.o.Client.Request(ref, r.PathValue("id")).Get(wctx)
	switch {
	case err == nil:
		out.Done, out.Result = true, &res
	case ctx.Err() == nil && (wctx.Err() != nil || pollTimedOut(err)):
		// still running
	default:
		return 0, nil, err
	}
	if out.Status, err = s.o.Client.Status(ctx, ref, contract.StatusRequest{}); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// pollTimedOut is the SDK's word that a long poll for an update's result ended before the result:
// the frontend answers a little before the poll's own deadline, so wctx may not have expired yet.
func pollTimedOut(err error) bool {
	var t *sdkclient.WorkflowUpdateServiceTimeoutOrCanceledError
	return errors.As(err, &t)
}

func (s *Server) approval(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	verb := r.PathValue("verb")
	if verb != contract.VerbApprove && verb != contract.VerbReject {
		return 0, nil, badRequest("verb: %q is not approve or reject", verb)
	}
	var req contract.ApprovalRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	if req.MR != "" {
		return 0, nil, componentOnly("mr", "the forge's approval comments")
	}
	// Until every approval is checked against its attested approver, the approver an approval
	// names is the verified person, never what the request says.
	req.Actor, req.Source = a.Name, "api"
	var res contract.ApprovalResult
	err = s.bounded(ctx, func(ctx context.Context) (err error) {
		res, err = s.o.Client.Approval(ctx, ref, verb, req, "")
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

// gate serves gates/add, gates/remove and cancel.
func (s *Server) gate(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	var req contract.GateRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	update := contract.UpdateCancel
	switch r.PathValue("verb") {
	case "":
	case "add":
		update = contract.UpdateGateAdd
		if err := gates.CheckTimeout(req.Name, req.Timeout); err != nil {
			return 0, nil, badRequest("timeout: %v", err)
		}
	case "remove":
		update = contract.UpdateGateRemove
	default:
		return 0, nil, badRequest("verb: %q is not add or remove", r.PathValue("verb"))
	}
	if update != contract.UpdateCancel {
		if err := gates.Check(req.Name); err != nil {
			return 0, nil, badRequest("name: %v", err)
		}
		if err := gates.CheckTenant(ref.Tenant, req.Name); err != nil {
			return 0, nil, badRequest("name: %v", err)
		}
	}
	var gs []contract.Gate
	err = s.bounded(ctx, func(ctx context.Context) (err error) {
		gs, err = s.o.Client.Gate(ctx, ref, update, req)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	if gs == nil {
		gs = []contract.Gate{}
	}
	return http.StatusOK, gs, nil
}

// protect serves protect and unprotect; the instance's workflow asks the policy who may.
func (s *Server) protect(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	var req contract.ProtectRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	update := contract.UpdateProtect
	if strings.HasSuffix(r.URL.Path, "/unprotect") {
		update = contract.UpdateUnprotect
	}
	var p *contract.Protection
	err = s.bounded(ctx, func(ctx context.Context) (err error) {
		p, err = s.o.Client.Protect(ctx, ref, update, req)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, p, nil
}

// extend serves extend; the instance's workflow asks the policy who may, and keeps the maximum.
func (s *Server) extend(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	var req contract.ExtendRequest
	if err := decode(r, &req); err != nil {
		return 0, nil, err
	}
	if req.By <= 0 {
		return 0, nil, badRequest("by: must be a positive duration")
	}
	var x *contract.Expiry
	err = s.bounded(ctx, func(ctx context.Context) (err error) {
		x, err = s.o.Client.Extend(ctx, ref, req)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, x, nil
}

// status is the status query sent with the person's attestation, for those who may read the
// instance: what it shows of a waiting approval depends on who asks.
func (s *Server) status(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	q := r.URL.Query()
	req := contract.StatusRequest{Output: q.Get("output"), App: q.Get("app"), Cluster: q.Get("cluster"), Resource: q.Get("resource")}
	if req.Output == "" {
		req.Output = contract.OutputSummary
	}
	if !contract.ValidOutput(req.Output) {
		return 0, nil, badRequest("output: %q is not one of summary, all, detail, rsync", req.Output)
	}
	st, err := s.o.Client.Status(ctx, ref, req)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// refresh answers with the status, so it is a read as well as the workers' refresh decision.
func (s *Server) refresh(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	var st *contract.Status
	err = s.bounded(ctx, func(ctx context.Context) (err error) {
		st, err = s.o.Client.Refresh(ctx, ref)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// authorize asks the policy about a request the server answers itself; a deny is a RefusedError.
func (s *Server) authorize(ctx context.Context, c Check) error {
	ok, reason, hash, err := s.o.Authorize(ctx, c)
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	where := c.Tenant
	if c.Name != "" {
		where += "/" + c.Name
	}
	s.log.Info("policy decision", zap.String("actor", c.Actor.String()), zap.String("operation", c.Operation),
		zap.String("on", where), zap.Bool("allow", ok), zap.String("reason", reason), zap.String("policyHash", hash))
	if s.o.Audit != nil && (!ok || !quietRead(c.Operation)) {
		e := contract.AuditEntry{At: time.Now().UTC(), Tenant: orStar(c.Tenant), Instance: orStar(c.Tenant) + "/" + orStar(c.Name),
			Actor: c.Actor.Name, ActorKind: string(c.Actor.Kind), Issuer: c.Actor.Issuer, Operation: c.Operation,
			Decision: contract.AuditDenied, Reason: reason, PolicyHash: hash, Request: "api " + c.Operation}
		if ok {
			e.Decision = contract.AuditAllowed
		}
		if err := s.o.Audit(ctx, e); err != nil {
			return fmt.Errorf("the audit log could not record this decision, so it is refused: %w", err)
		}
	}
	if !ok {
		return &client.RefusedError{Message: reason}
	}
	return nil
}

// secrets reads an instance's secrets for a person the policy allows (operation "secrets"):
// people hold neither the store's credentials nor the payload key, so this is their only way.
func (s *Server) secrets(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := instanceRef(r)
	if err != nil {
		return 0, nil, err
	}
	if s.o.Secrets == nil {
		return 0, nil, errors.New("this slipway server has no secret store configured (--store-pg-conn or --state-dir)")
	}
	// The policy decides before a missing instance is told apart from one the person may not read.
	st, err := s.o.Client.Status(ctx, ref, contract.StatusRequest{})
	var nf *client.NotFoundError
	if err != nil && !errors.As(err, &nf) {
		return 0, nil, err
	}
	c := Check{Actor: a, Operation: "secrets", Tenant: ref.Tenant, Name: ref.Name}
	if st != nil {
		c.State = string(st.State)
	}
	if err := s.authorize(ctx, c); err != nil {
		return 0, nil, err
	}
	if nf != nil {
		return 0, nil, nf
	}
	vals, err := s.o.Secrets(ctx, ref.Tenant, ref.Name)
	if err != nil {
		return 0, nil, err
	}
	s.log.Info("secrets read", zap.String("instance", ref.String()), zap.String("actor", a.String()))
	return http.StatusOK, vals, nil
}

func (s *Server) driftCheck(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	var scope contract.DriftScope
	if err := decode(r, &scope); err != nil {
		return 0, nil, err
	}
	if err := checkDriftScope("", scope); err != nil {
		return 0, nil, err
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: "drift", Tenant: scope.Tenant, Request: scope}); err != nil {
		return 0, nil, err
	}
	res, err := s.o.Client.SweepDrift(ctx, scope)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

func (s *Server) driftSchedule(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	var body DriftScheduleBody
	if err := decode(r, &body); err != nil {
		return 0, nil, err
	}
	if body.Every < client.MinDriftInterval {
		return 0, nil, badRequest("every: %s must be at least %s", body.Every, client.MinDriftInterval)
	}
	if err := checkDriftScope("scope.", body.Scope); err != nil {
		return 0, nil, err
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: "drift", Tenant: body.Scope.Tenant, Request: body}); err != nil {
		return 0, nil, err
	}
	// The schedule's sweeps check and remediate for the person who created it.
	body.Scope.Requester = &a
	if err := s.o.Client.ScheduleDrift(ctx, body.ID, body.Every, body.Scope); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, body, nil
}

func (s *Server) driftUnschedule(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	// A schedule's scope is not known here without reading it: unscheduling is a platform act.
	if err := s.authorize(ctx, Check{Actor: a, Operation: "drift"}); err != nil {
		return 0, nil, err
	}
	if err := s.o.Client.Unschedule(ctx, r.PathValue("id")); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]string{"deleted": client.DriftScheduleID(r.PathValue("id"))}, nil
}

// rolloutPlan is the action list a rollout would run, with only the instances (and their
// current and desired values) of the tenants the actor may read.
func (s *Server) rolloutPlan(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	var spec contract.RolloutSpec
	if err := decode(r, &spec); err != nil {
		return 0, nil, err
	}
	if err := checkRolloutScope(spec); err != nil {
		return 0, nil, err
	}
	// Decided before anything is planned: what a plan refuses, and each action's batch, are
	// computed over its whole scope, so its scope is what the person must be able to read. A
	// tenant they may not read is answered as one with no instances, as a list of it is.
	if spec.Tenant != "" {
		if ok, err := s.readable(ctx, a).Tenant(spec.Tenant); err != nil || !ok {
			return http.StatusOK, contract.RolloutPlan{Stack: spec.Stack, Actions: []contract.RolloutAction{}}, err
		}
	} else if err := s.authorize(ctx, Check{Actor: a, Operation: OpRead, Tenant: "*", Request: spec}); err != nil {
		var refused *client.RefusedError
		if errors.As(err, &refused) {
			return 0, nil, &client.RefusedError{Message: refused.Message + "; name your tenant (--tenant) to plan over its instances"}
		}
		return 0, nil, err
	}
	plan, err := s.planRollout(ctx, a, spec)
	if err != nil {
		return 0, nil, err
	}
	plan.Actions, err = keep(s.readable(ctx, a), plan.Actions, func(x contract.RolloutAction) string { return x.Ref.Tenant })
	return http.StatusOK, plan, err
}

// rolloutStart plans (so bad input starts nothing), asks the policy, then starts.
func (s *Server) rolloutStart(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	var spec contract.RolloutSpec
	if err := decode(r, &spec); err != nil {
		return 0, nil, err
	}
	switch {
	case spec.ID == "":
		return 0, nil, badRequest("id: a rollout needs its ID")
	case !names.IsLabel(spec.ID):
		return 0, nil, badRequest("id: %q must be a lowercase label (a-z, 0-9, -)", spec.ID)
	case spec.Pins != nil:
		return 0, nil, badRequest("pins: set only by slipway, for an undo (POST /v1/rollouts/{id}/undo)")
	case spec.Undoes != "":
		return 0, nil, badRequest("undoes: set only by slipway, for an undo (POST /v1/rollouts/{id}/undo)")
	}
	if strings.HasPrefix(spec.ID, contract.DeadlineWavePrefix) {
		return 0, nil, badRequest("id: %q: IDs beginning %q are slipway's deadline waves", spec.ID, contract.DeadlineWavePrefix)
	}
	if err := contract.CheckPriority("priority", spec.Priority); err != nil {
		return 0, nil, badRequest("%s", err)
	}
	if err := checkRolloutScope(spec); err != nil {
		return 0, nil, err
	}
	return s.startRollout(ctx, a, spec)
}

// checkRolloutScope refuses a tenant or stack that is not a name: the plan lists instances by
// them, and what a refusal or a batch number says is computed over that whole list.
func checkRolloutScope(spec contract.RolloutSpec) error {
	switch {
	case spec.Tenant != "" && !names.IsLabel(spec.Tenant):
		return badRequest("tenant: %q is not a tenant name", spec.Tenant)
	case spec.Stack != "" && !names.IsLabel(spec.Stack):
		return badRequest("stack: %q is not a stack name", spec.Stack)
	}
	return nil
}

// startRollout asks the policy on spec's scope, plans it (so bad input starts nothing), asks the
// policy again with the instances the plan touches, then starts it.
func (s *Server) startRollout(ctx context.Context, a identity.Actor, spec contract.RolloutSpec) (int, any, error) {
	// First on the scope alone: a plan's refusal depends on every instance in its scope.
	if err := s.authorize(ctx, Check{Actor: a, Operation: "rollout", Tenant: spec.Tenant, Request: spec}); err != nil {
		return 0, nil, err
	}
	plan, err := s.planRollout(ctx, a, spec)
	if err != nil {
		return 0, nil, err
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: "rollout", Tenant: spec.Tenant, Request: spec, Instances: plan.Touches()}); err != nil {
		return 0, nil, err
	}
	// Every tenant the plan reaches is one the actor must act on, whatever the spec names.
	for _, t := range planTenants(plan) {
		if t == spec.Tenant {
			continue
		}
		if err := s.authorize(ctx, Check{Actor: a, Operation: "rollout", Tenant: t}); err != nil {
			return 0, nil, err
		}
	}
	if err := s.o.Client.StartRollout(ctx, spec); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, RolloutStarted{Spec: spec, Plan: plan}, nil
}

func (s *Server) rolloutControl(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	verb := r.PathValue("verb")
	var req any
	switch verb {
	case contract.UpdateRolloutPause, contract.UpdateRolloutResume, contract.UpdateRolloutAbort:
		var rr contract.RolloutRequest
		if err := decode(r, &rr); err != nil {
			return 0, nil, err
		}
		req = rr
	case contract.UpdateRolloutApprove:
		var ar contract.RolloutApproveRequest
		if err := decode(r, &ar); err != nil {
			return 0, nil, err
		}
		req = ar
	default:
		return 0, nil, badRequest("verb: %q is not pause, resume, abort or %s", verb, contract.UpdateRolloutApprove)
	}
	if rr, ok := req.(contract.RolloutRequest); ok {
		rr.Actor = a.Name // the status names who decided: the verified person, never a name in the body
		req = rr
	}
	id := r.PathValue("id")
	if err := s.decideRollout(ctx, a, id, req); err != nil {
		return 0, nil, err
	}
	if _, err := s.rolloutStatus(ctx, a, id); err != nil {
		return 0, nil, err
	}
	st, err := s.o.Client.ControlRollout(ctx, id, verb, req)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, st, nil
}

// decideRollout decides an act on rollout id on the tenant it carries (every tenant when none)
// before anything of it is read. A refusal, and an ID that does not exist, answer alike for a
// person who may not act on every tenant: nothing tells them another tenant's rollout exists.
func (s *Server) decideRollout(ctx context.Context, a identity.Actor, id string, req any) error {
	return s.decideByID(ctx, Check{Actor: a, Operation: "rollout", Request: req}, contract.RolloutWorkflowID(id), "rollout "+id, &client.RolloutNotFoundError{ID: id})
}

// decideByID decides c on the tenant workflow wid carries, before anything else of it is read;
// a refusal names neither that tenant nor whether wid exists ("what": the rollout or preview asked
// for). An ID that does not exist is decided on every tenant: who may act there is told so.
func (s *Server) decideByID(ctx context.Context, c Check, wid, what string, notFound error) error {
	tenant, found, err := s.o.Client.WorkflowTenant(ctx, wid)
	if err != nil {
		return err
	}
	c.Tenant = cmp.Or(tenant, "*")
	if err := s.authorize(ctx, c); err != nil {
		var refused *client.RefusedError
		if errors.As(err, &refused) {
			verb := "act on"
			if c.Operation == OpRead {
				verb = "read"
			}
			return &client.RefusedError{Message: fmt.Sprintf("%s may not %s %s, or it does not exist", c.Actor.Name, verb, what)}
		}
		return err
	}
	if !found {
		return notFound
	}
	return nil
}

// rolloutStatus is rollout id's status. One whose start still waits (a deadline wave before its
// window) answers no query: it is decided on its tenant first, so a person who may not act there
// is refused as for any rollout of it, not told that the ID waits.
func (s *Server) rolloutStatus(ctx context.Context, a identity.Actor, id string) (*contract.RolloutStatus, error) {
	cur, err := s.o.Client.RolloutStatus(ctx, id)
	var waiting *client.RolloutWaitingError
	if errors.As(err, &waiting) {
		if err := s.authorize(ctx, Check{Actor: a, Operation: "rollout", Tenant: waiting.Tenant}); err != nil {
			return nil, err
		}
		return nil, &client.RejectedError{Message: waiting.Error(), Busy: true}
	}
	return cur, err
}

// quietRead is a read whose allowed decisions are not audited (status polls would flood the log);
// its refusals are.
func quietRead(op string) bool { return op == OpRead }

// planRollout plans spec for a. A plan's refusal (a downgrade, a --set a release refuses) names the instance and its
// release, so a person who may not read the plan's whole scope (every tenant, or another's) is
// told only that it was refused: the plan's actions are kept to their tenants, and so is this.
func (s *Server) planRollout(ctx context.Context, a identity.Actor, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	plan, err := s.o.Client.PlanRollout(ctx, spec)
	var rej *client.RejectedError
	if !errors.As(err, &rej) {
		return plan, err
	}
	ok, rerr := s.readable(ctx, a).Tenant(cmp.Or(spec.Tenant, "*"))
	switch {
	case rerr != nil:
		return plan, rerr
	case !ok:
		return plan, &client.RejectedError{Message: "the plan is refused for an instance of a tenant you may not read; name your tenant (--tenant) to see why"}
	}
	return plan, err
}

// planTenants are the tenants of a rollout plan's instances, sorted.
func planTenants(p contract.RolloutPlan) []string {
	var ts []string
	for _, x := range p.Actions {
		if !slices.Contains(ts, x.Ref.Tenant) {
			ts = append(ts, x.Ref.Tenant)
		}
	}
	slices.Sort(ts)
	return ts
}

// checkDriftScope refuses what people may not ask of a drift sweep, naming the field (prefix is
// where the scope sits in the body): a sweep's own continuation state, which would name
// instances beyond the tenant the policy decided on, the schedule slipway records, and more
// checks at once than contract.MaxDriftConcurrency.
func checkDriftScope(prefix string, sc contract.DriftScope) error {
	switch {
	case sc.Resume != nil:
		return componentOnly(prefix+"resume", "a sweep's own progress across continue-as-new; the sweep lists its instances from "+prefix+"tenant and "+prefix+"stack")
	case sc.Schedule != "":
		return componentOnly(prefix+"schedule", "the schedule that starts a sweep")
	case sc.Requester != nil:
		return componentOnly(prefix+"requester", "the signed-in person a sweep checks for")
	case sc.Concurrency < 0 || sc.Concurrency > contract.MaxDriftConcurrency:
		return badRequest("%sconcurrency: %d: must be 1 to %d (0: the default)", prefix, sc.Concurrency, contract.MaxDriftConcurrency)
	case sc.Remediate != "" && sc.Remediate != contract.RemediateDeploy:
		return badRequest("%sremediate: %q: must be deploy, or left out to only report", prefix, sc.Remediate)
	case sc.Tenant != "" && !names.IsLabel(sc.Tenant):
		return badRequest("%stenant: %q is not a tenant name", prefix, sc.Tenant)
	case sc.Stack != "" && !names.IsLabel(sc.Stack):
		return badRequest("%sstack: %q is not a stack name", prefix, sc.Stack)
	}
	return nil
}
