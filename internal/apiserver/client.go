package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// Client is the CLI's side of the API: the same calls as internal/client, sent to `slipway
// server` with the person's token, and its errors turned back into internal/client's.
type Client struct {
	// BaseURL is the server's, e.g. http://127.0.0.1:8090.
	BaseURL string
	// Token gives the person's current ID token (identity.CachedToken refreshes it).
	Token func(ctx context.Context) (string, error)
	HTTP  *http.Client
}

// NewClient checks the server URL.
func NewClient(baseURL string, token func(ctx context.Context) (string, error)) (*Client, error) {
	u, err := url.Parse(baseURL)
	switch {
	case err != nil:
		return nil, err
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("want http:// or https://")
	case u.Host == "":
		return nil, errors.New("no host")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, errors.New("a server URL has no query, fragment or user")
	}
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), Token: token, HTTP: tracing.HTTPClient(&http.Client{Timeout: maxWait + 30*time.Second})}, nil
}

// do sends one request and decodes the answer into out (nil: ignore it).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	tok, err := c.Token(ctx)
	if err != nil {
		return err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return &ServerUnavailableError{URL: c.BaseURL, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &ServerUnavailableError{URL: c.BaseURL, Err: err}
	}
	if resp.StatusCode >= 300 {
		var eb Problem
		if json.Unmarshal(data, &eb) != nil {
			eb.Detail = strings.TrimSpace(string(data))
		}
		return errorFromBody(resp.StatusCode, eb)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("slipway server at %s: decode the answer to %s %s: %w", c.BaseURL, method, path, err)
	}
	return nil
}

// ServerUnavailableError: the slipway server could not be reached (CLI exit 1).
type ServerUnavailableError struct {
	URL string
	Err error
}

func (e *ServerUnavailableError) Error() string {
	return fmt.Sprintf("cannot reach the slipway server at %s (--server, SLIPWAY_SERVER): %v", e.URL, e.Err)
}

func (e *ServerUnavailableError) Unwrap() error { return e.Err }

func instPath(ref contract.Ref) string {
	return "/v1/instances/" + url.PathEscape(ref.Tenant) + "/" + url.PathEscape(ref.Name)
}

// Whoami is the actor the server verified the token as.
func (c *Client) Whoami(ctx context.Context) (identity.Actor, error) {
	var a identity.Actor
	return a, c.do(ctx, http.MethodGet, "/v1/whoami", nil, &a)
}

// Submit sends an operation; the server prechecks it as the CLI does and answers once a worker accepted it.
func (c *Client) Submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, req contract.OperationRequest, requestID string) (Accepted, error) {
	var out Accepted
	name := string(op)
	if op == lifecycle.OpProvision {
		name = "create"
	}
	return out, c.do(ctx, http.MethodPost, instPath(ref)+"/operations/"+name, OperationBody{RequestID: requestID, Request: req}, &out)
}

// Decide sends retry, resolve or abandon.
func (c *Client) Decide(ctx context.Context, ref contract.Ref, d lifecycle.Decision, req contract.DecisionRequest, requestID string) (Accepted, error) {
	var out Accepted
	return out, c.do(ctx, http.MethodPost, instPath(ref)+"/decisions/"+string(d), DecisionBody{RequestID: requestID, Request: req}, &out)
}

// Wait long-polls the request's end, calling progress with the status after each poll.
func (c *Client) Wait(ctx context.Context, ref contract.Ref, requestID string, progress func(*contract.Status)) (contract.OperationResult, error) {
	for {
		var st RequestState
		path := fmt.Sprintf("%s/requests/%s?wait=%s", instPath(ref), url.PathEscape(requestID), maxWait)
		if err := c.do(ctx, http.MethodGet, path, nil, &st); err != nil {
			return contract.OperationResult{}, err
		}
		if progress != nil && st.Status != nil {
			progress(st.Status)
		}
		if st.Done && st.Result != nil {
			return *st.Result, nil
		}
	}
}

// Approval sends approve or reject.
func (c *Client) Approval(ctx context.Context, ref contract.Ref, verb string, req contract.ApprovalRequest) (contract.ApprovalResult, error) {
	var out contract.ApprovalResult
	return out, c.do(ctx, http.MethodPost, instPath(ref)+"/approvals/"+url.PathEscape(verb), req, &out)
}

// Gate sends gate-add, gate-remove or cancel and returns the gates after it.
func (c *Client) Gate(ctx context.Context, ref contract.Ref, update string, req contract.GateRequest) ([]contract.Gate, error) {
	path := instPath(ref) + "/cancel"
	switch update {
	case contract.UpdateGateAdd:
		path = instPath(ref) + "/gates/add"
	case contract.UpdateGateRemove:
		path = instPath(ref) + "/gates/remove"
	}
	var out []contract.Gate
	return out, c.do(ctx, http.MethodPost, path, req, &out)
}

// Protect sends protect or unprotect (POST .../protect, .../unprotect).
func (c *Client) Protect(ctx context.Context, ref contract.Ref, update string, req contract.ProtectRequest) (*contract.Protection, error) {
	var out *contract.Protection
	return out, c.do(ctx, http.MethodPost, instPath(ref)+"/"+update, req, &out)
}

// Extend sends extend (POST .../extend).
func (c *Client) Extend(ctx context.Context, ref contract.Ref, req contract.ExtendRequest) (*contract.Expiry, error) {
	var out *contract.Expiry
	return out, c.do(ctx, http.MethodPost, instPath(ref)+"/extend", req, &out)
}

// Status reads the instance's status as the signed-in person may see it.
func (c *Client) Status(ctx context.Context, ref contract.Ref, req contract.StatusRequest) (*contract.Status, error) {
	q := url.Values{}
	for k, v := range map[string]string{"output": req.Output, "app": req.App, "cluster": req.Cluster, "resource": req.Resource} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var st contract.Status
	return &st, c.do(ctx, http.MethodGet, instPath(ref)+"/status?"+q.Encode(), nil, &st)
}

// Refresh asks the instance to observe its app now.
func (c *Client) Refresh(ctx context.Context, ref contract.Ref) (*contract.Status, error) {
	var st contract.Status
	return &st, c.do(ctx, http.MethodPost, instPath(ref)+"/refresh", nil, &st)
}

// Secrets reads the instance's secrets, if the policy lets the person.
func (c *Client) Secrets(ctx context.Context, ref contract.Ref) (map[string]string, error) {
	var out map[string]string
	return out, c.do(ctx, http.MethodGet, instPath(ref)+"/secrets", nil, &out)
}

// SweepDrift runs a drift sweep now and waits for it.
func (c *Client) SweepDrift(ctx context.Context, scope contract.DriftScope) (contract.DriftSweepResult, error) {
	var out contract.DriftSweepResult
	return out, c.do(ctx, http.MethodPost, "/v1/drift/check", scope, &out)
}

// ScheduleDrift creates a drift schedule.
func (c *Client) ScheduleDrift(ctx context.Context, id string, every time.Duration, scope contract.DriftScope) error {
	return c.do(ctx, http.MethodPost, "/v1/drift/schedules", DriftScheduleBody{ID: id, Every: every, Scope: scope}, nil)
}

// Unschedule deletes a drift schedule.
func (c *Client) Unschedule(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/drift/schedules/"+url.PathEscape(id), nil, nil)
}

// PlanRollout computes a rollout's action list on a worker.
func (c *Client) PlanRollout(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	var out contract.RolloutPlan
	return out, c.do(ctx, http.MethodPost, "/v1/rollouts/plan", spec, &out)
}

// StartRollout plans and starts a rollout; it returns the plan.
func (c *Client) StartRollout(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	var out RolloutStarted
	return out.Plan, c.do(ctx, http.MethodPost, "/v1/rollouts", spec, &out)
}

// ControlRollout pauses, resumes or aborts a rollout (a RolloutRequest), or approves a plan shape of it (a RolloutApproveRequest).
func (c *Client) ControlRollout(ctx context.Context, id, update string, req any) (*contract.RolloutStatus, error) {
	var out contract.RolloutStatus
	return &out, c.do(ctx, http.MethodPost, "/v1/rollouts/"+url.PathEscape(id)+"/"+url.PathEscape(update), req, &out)
}

// KindOf is client.KindOf, and Invalid for an API request the server found malformed: the kind
// of an error the server's client returned, whichever way the request went.
func KindOf(err error) errkind.Kind {
	var br *BadRequestError
	if errors.As(err, &br) {
		return errkind.Invalid
	}
	return client.KindOf(err)
}

// IsBadRequest reports an API request the server found malformed (CLI exit 2), beside
// client.IsBadRequest for the errors the direct path shares.
func IsBadRequest(err error) bool { return KindOf(err) == errkind.Invalid || client.IsBadRequest(err) }

// List lists the instances of the tenants the person may read.
func (c *Client) List(ctx context.Context, f client.ListFilter) ([]client.ListItem, error) {
	q := url.Values{}
	for k, v := range map[string]string{"tenant": f.Tenant, "state": f.State, "ready": f.Ready, "stack": f.Stack, "drifted": f.Drifted} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, v := range map[string]bool{"gated": f.Gated, "awaitingApproval": f.AwaitingApproval, "retrying": f.Retrying, "all": f.All} {
		if v {
			q.Set(k, "true")
		}
	}
	if !f.ExpiringBefore.IsZero() {
		q.Set("expiringBefore", f.ExpiringBefore.UTC().Format(time.RFC3339))
	}
	var out []client.ListItem
	return out, c.do(ctx, http.MethodGet, "/v1/instances?"+q.Encode(), nil, &out)
}

// StackCounts are a stack's counts per tenant the person may read (and over all, for the fleet's readers).
func (c *Client) StackCounts(ctx context.Context, stack, tenant string) ([]client.StackCount, bool, error) {
	var out StackCounts
	path := "/v1/stacks/" + url.PathEscape(stack) + "/counts?" + url.Values{"tenant": {tenant}}.Encode()
	return out.Counts, out.Known, c.do(ctx, http.MethodGet, path, nil, &out)
}

// Drifted lists the drifted instances of the tenants the person may read.
func (c *Client) Drifted(ctx context.Context, f client.ListFilter) ([]client.DriftItem, error) {
	var out []client.DriftItem
	return out, c.do(ctx, http.MethodGet, "/v1/drift?"+url.Values{"stack": {f.Stack}, "tenant": {f.Tenant}}.Encode(), nil, &out)
}

// Audit calls fn with each decision recorded by the instances of the tenants the person may read.
func (c *Client) Audit(ctx context.Context, tenant string, since time.Time, fn func(client.AuditEntry) error) error {
	q := url.Values{"tenant": {tenant}}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	var out []client.AuditEntry
	if err := c.do(ctx, http.MethodGet, "/v1/audit?"+q.Encode(), nil, &out); err != nil {
		return err
	}
	for _, e := range out {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Events returns the newest webhook deliveries, with the outcomes of the tenants the person may read.
func (c *Client) Events(ctx context.Context, limit int) ([]client.DeliveryEvent, error) {
	var out []client.DeliveryEvent
	return out, c.do(ctx, http.MethodGet, "/v1/deliveries?limit="+strconv.Itoa(limit), nil, &out)
}

// InstanceEvents calls fn with each entry of the instance's log; with follow it then long-polls
// the server for new ones until ctx ends or fn returns client.ErrStopEvents.
func (c *Client) InstanceEvents(ctx context.Context, ref contract.Ref, follow bool, fn func(client.InstanceEvent) error) error {
	for from, wait := 0, time.Duration(0); ; wait = maxWait {
		var evs []client.InstanceEvent
		path := fmt.Sprintf("%s/events?from=%d&wait=%s", instPath(ref), from, wait)
		if err := c.do(ctx, http.MethodGet, path, nil, &evs); err != nil {
			return err
		}
		for _, ev := range evs {
			if err := fn(ev); errors.Is(err, client.ErrStopEvents) {
				return nil
			} else if err != nil {
				return err
			}
		}
		if !follow {
			return nil
		}
		from += len(evs)
	}
}

// StackRequest cuts a release, points a channel or reads the releases (req.Op), as the person: the server asks the policy first.
func (c *Client) StackRequest(ctx context.Context, req contract.StackRequest) (contract.StackResult, error) {
	var out contract.StackResult
	base := "/v1/stacks/" + url.PathEscape(req.Stack)
	switch req.Op {
	case contract.StackOpRelease:
		return out, c.do(ctx, http.MethodPost, base+"/releases", ReleaseBody{Version: req.Version, Notes: req.Notes, From: req.From, ID: req.ID}, &out)
	case contract.StackOpReleases:
		return out, c.do(ctx, http.MethodGet, base+"/releases", nil, &out)
	case contract.StackOpChannel:
		return out, c.do(ctx, http.MethodPost, base+"/channels/"+url.PathEscape(req.Channel), ChannelBody{Version: req.Version, Default: req.Default, ID: req.ID}, &out)
	}
	return out, fmt.Errorf("stack %s through slipway server: not served yet; talk to Temporal directly", req.Op)
}

// SetDeadline sets an upgrade deadline of stack as the person, and starts its waves.
func (c *Client) SetDeadline(ctx context.Context, stack string, b DeadlineBody) (client.DeadlineSet, error) {
	var out client.DeadlineSet
	return out, c.do(ctx, http.MethodPost, "/v1/stacks/"+url.PathEscape(stack)+"/deadlines", b, &out)
}

// StackStatus is the stack's skew over the tenants the person may read (only tenant, when named) and its deadlines' progress.
func (c *Client) StackStatus(ctx context.Context, stack, tenant string) (StackStatus, error) {
	var out StackStatus
	path := "/v1/stacks/" + url.PathEscape(stack) + "/status"
	if tenant != "" {
		path += "?" + url.Values{"tenant": {tenant}}.Encode()
	}
	return out, c.do(ctx, http.MethodGet, path, nil, &out)
}

// StartPreview starts a fleet preview of spec.Stack.
func (c *Client) StartPreview(ctx context.Context, spec contract.PreviewSpec) error {
	return c.do(ctx, http.MethodPost, "/v1/stacks/"+url.PathEscape(spec.Stack)+"/previews", spec, nil)
}

// Preview is a preview's result so far.
func (c *Client) Preview(ctx context.Context, stack, id string) (contract.PreviewResult, error) {
	var out contract.PreviewResult
	return out, c.do(ctx, http.MethodGet, "/v1/stacks/"+url.PathEscape(stack)+"/previews/"+url.PathEscape(id), nil, &out)
}

// UndoRollout starts rollout id, which undoes rollout undone; it returns the spec and plan it started.
func (c *Client) UndoRollout(ctx context.Context, undone, id string) (RolloutStarted, error) {
	var out RolloutStarted
	return out, c.do(ctx, http.MethodPost, "/v1/rollouts/"+url.PathEscape(undone)+"/undo", UndoBody{ID: id}, &out)
}
