package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// OpRead is the policy operation of every read: an instance's (status, events, a request's
// end, a plan), a tenant's (what a fleet read keeps of it), or tenant "*" (the whole fleet).
const OpRead = "read"

// Readable says, once per tenant and request, whether the actor may read the tenant: a fleet
// read keeps only what it allows and never prints the rest. Tenant "" is the whole fleet.
type Readable struct {
	s    *Server
	ctx  context.Context
	a    identity.Actor
	memo map[string]bool
}

func (s *Server) readable(ctx context.Context, a identity.Actor) *Readable {
	return &Readable{s: s, ctx: ctx, a: a, memo: map[string]bool{}}
}

// Tenant asks the policy once; a deny is false, an error of the policy an error.
func (r *Readable) Tenant(t string) (bool, error) {
	if ok, seen := r.memo[t]; seen {
		return ok, nil
	}
	err := r.s.authorize(r.ctx, Check{Actor: r.a, Operation: OpRead, Tenant: t})
	var rf *client.RefusedError
	switch {
	case errors.As(err, &rf):
		r.memo[t] = false
	case err != nil:
		return false, err
	default:
		r.memo[t] = true
	}
	return r.memo[t], nil
}

// keep is the items of the tenants the actor may read, in order; never nil.
func keep[T any](r *Readable, items []T, tenant func(T) string) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		ok, err := r.Tenant(tenant(it))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, it)
		}
	}
	return out, nil
}

// tenantOf is the tenant of "tenant/name" ("" when it names none: only the fleet's readers see it).
func tenantOf(ref string) string {
	t, _, _ := strings.Cut(ref, "/")
	return t
}

// readInstance asks the policy whether the actor may read the path's instance, before anything
// about it is read: a person who may not read it learns nothing, not even whether it exists.
// Requests that change an instance ask it first too: a precheck's refusal would tell its state,
// its gates or its values, and nothing is started for a tenant the person may not read.

func (s *Server) readInstance(ctx context.Context, a identity.Actor, r *http.Request) (contract.Ref, error) {
	ref, err := instanceRef(r)
	if err != nil {
		return ref, err
	}
	return ref, s.authorize(ctx, Check{Actor: a, Operation: OpRead, Tenant: ref.Tenant, Name: ref.Name})
}

// listFilter reads a fleet read's filter from the query, checking each value: it becomes a
// visibility query.
func listFilter(q url.Values) (client.ListFilter, error) {
	f := client.ListFilter{Tenant: q.Get("tenant"), State: q.Get("state"), Ready: q.Get("ready"), Stack: q.Get("stack"), Drifted: q.Get("drifted")}
	var err error
	for name, dst := range map[string]*bool{"gated": &f.Gated, "awaitingApproval": &f.AwaitingApproval, "retrying": &f.Retrying, "all": &f.All} {
		if v := q.Get(name); v != "" {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return f, badRequest("%s: %q is not true or false", name, v)
			}
		}
	}
	if v := q.Get("expiringBefore"); v != "" {
		if f.ExpiringBefore, err = time.Parse(time.RFC3339, v); err != nil {
			return f, badRequest("expiringBefore: %q is not an RFC 3339 time", v)
		}
	}
	_, stateOK := lifecycle.ParseState(f.State)
	switch {
	case f.Tenant != "" && !names.IsLabel(f.Tenant):
		return f, badRequest("tenant: %q is not a tenant name", f.Tenant)
	case f.Stack != "" && !names.IsLabel(f.Stack):
		return f, badRequest("stack: %q is not a stack name", f.Stack)
	case f.State != "" && !stateOK:
		return f, badRequest("state: %q is not a state name", f.State)
	case f.Ready != "" && f.Ready != "True" && f.Ready != "False" && f.Ready != "Unknown":
		return f, badRequest("ready: %q is not one of True, False, Unknown", f.Ready)
	case f.Drifted != "" && f.Drifted != "True" && f.Drifted != "False":
		return f, badRequest("drifted: %q is not one of True, False", f.Drifted)
	}
	return f, nil
}

// list is `slipway list`: the instances of the tenants the actor may read.
func (s *Server) list(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	f, err := listFilter(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	items, err := s.o.Client.List(ctx, f)
	if err != nil {
		return 0, nil, err
	}
	items, err = keep(s.readable(ctx, a), items, func(it client.ListItem) string { return it.Tenant })
	return http.StatusOK, items, err
}

// StackCounts answers GET /v1/stacks/{stack}/counts.
type StackCounts struct {
	Known  bool                `json:"known"`
	Counts []client.StackCount `json:"counts"`
}

// stackCounts is `slipway list --stack S`'s counts: per tenant the actor may read, and over every
// tenant (tenant "") only for those who may read the whole fleet.
func (s *Server) stackCounts(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	f, err := listFilter(url.Values{"stack": {r.PathValue("stack")}, "tenant": {r.URL.Query().Get("tenant")}})
	if err != nil {
		return 0, nil, err
	}
	counts, known, err := s.o.Client.StackCounts(ctx, f.Stack, f.Tenant)
	if err != nil {
		return 0, nil, err
	}
	counts, err = keep(s.readable(ctx, a), counts, func(c client.StackCount) string { return c.Tenant })
	return http.StatusOK, StackCounts{Known: known, Counts: counts}, err
}

// StackStatus answers GET /v1/stacks/{stack}/status: stack status's skew over the tenants the
// person may read, and each upgrade deadline's progress for those who may read the stack's releases.
type StackStatus struct {
	Counts []client.ReleaseCount `json:"counts"`
	// HiddenTenants counts the tenants running the stack the person may not read: left out of Counts.
	HiddenTenants int                     `json:"hiddenTenants"`
	Deadlines     []client.DeadlineStatus `json:"deadlines"`
	// DeadlinesNotShown says why there are no deadlines: the releases are a read of every tenant.
	DeadlinesNotShown string `json:"deadlinesNotShown,omitempty"`
}

// stackStatus is `slipway stack status`: the instances of ?tenant= (a read of it), else of every
// tenant the person may read, counted per release; the deadlines' progress over the same instances.
func (s *Server) stackStatus(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	tenant := r.URL.Query().Get("tenant")
	if tenant != "" {
		if !names.IsLabel(tenant) {
			return 0, nil, badRequest("tenant: %q is not a tenant name", tenant)
		}
		if err := s.authorize(ctx, Check{Actor: a, Operation: OpRead, Tenant: tenant}); err != nil {
			return 0, nil, err
		}
	}
	items, err := s.o.Client.List(ctx, client.ListFilter{Stack: stack, Tenant: tenant})
	if err != nil {
		return 0, nil, err
	}
	out, shown, err := s.skew(ctx, a, items)
	if err != nil {
		return 0, nil, err
	}
	// Whether to show the deadlines only filters the answer, so it is not recorded; the
	// StackWorkflow decides the releases' read again, on the person.
	ok, reason, _, err := s.o.Authorize(ctx, Check{Actor: a, Operation: OpRead, Name: stack})
	if err != nil {
		return 0, nil, fmt.Errorf("policy: %w", err)
	}
	if !ok {
		out.DeadlinesNotShown = reason
		return http.StatusOK, out, nil
	}
	rels, err := s.o.Client.StackRequest(ctx, contract.StackRequest{Op: contract.StackOpReleases, Stack: stack})
	var bad *client.InvalidConfigError
	switch {
	case errors.As(err, &bad):
		return 0, nil, err // the releases file is refused: every render of the stack fails on it
	case err != nil:
		out.DeadlinesNotShown = err.Error()
	default:
		out.Deadlines = client.DeadlineProgress(s.o.Windows, stack, rels.Deadlines, shown, time.Now())
	}
	return http.StatusOK, out, nil
}

// skew counts the instances of the tenants a may read per release and tenant, and how many
// tenants were left out; shown are the instances counted.
func (s *Server) skew(ctx context.Context, a identity.Actor, items []client.ListItem) (out StackStatus, shown []client.ListItem, err error) {
	rd := s.readable(ctx, a)
	var hidden []string
	for _, it := range items {
		ok, err := rd.Tenant(it.Tenant)
		switch {
		case err != nil:
			return out, nil, err
		case ok:
			shown = append(shown, it)
		case !slices.Contains(hidden, it.Tenant):
			hidden = append(hidden, it.Tenant)
		}
	}
	out = StackStatus{Counts: client.CountReleases(shown), HiddenTenants: len(hidden), Deadlines: []client.DeadlineStatus{}}
	if out.Counts == nil {
		out.Counts = []client.ReleaseCount{}
	}
	return out, shown, nil
}

// drifted is `slipway drift list`: the drifted instances of the tenants the actor may read.
func (s *Server) drifted(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	q := r.URL.Query()
	f, err := listFilter(url.Values{"stack": {q.Get("stack")}, "tenant": {q.Get("tenant")}})
	if err != nil {
		return 0, nil, err
	}
	items, err := s.o.Client.Drifted(ctx, f)
	if err != nil {
		return 0, nil, err
	}
	items, err = keep(s.readable(ctx, a), items, func(it client.DriftItem) string { return tenantOf(it.Ref) })
	return http.StatusOK, items, err
}

// audit is `slipway audit`: the decisions recorded by the instances of the tenants the actor may
// read. Only their histories are read.
func (s *Server) audit(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	q := r.URL.Query()
	tenant := q.Get("tenant")
	if tenant != "" && !names.IsLabel(tenant) {
		return 0, nil, badRequest("tenant: %q is not a tenant name", tenant)
	}
	var since time.Time
	if v := q.Get("since"); v != "" {
		var err error
		if since, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return 0, nil, badRequest("since: %q is not an RFC 3339 time", v)
		}
	}
	tenants := []string{tenant}
	if tenant == "" {
		items, err := s.o.Client.List(ctx, client.ListFilter{All: true})
		if err != nil {
			return 0, nil, err
		}
		tenants = nil
		for _, it := range items {
			if it.Tenant != "" && !slices.Contains(tenants, it.Tenant) {
				tenants = append(tenants, it.Tenant)
			}
		}
	}
	rd := s.readable(ctx, a)
	tenants, err := keep(rd, tenants, func(t string) string { return t })
	if err != nil {
		return 0, nil, err
	}
	slices.Sort(tenants)
	out := []client.AuditEntry{}
	for _, t := range tenants {
		if err := s.o.Client.Audit(ctx, t, since, func(e client.AuditEntry) error {
			out = append(out, e)
			return nil
		}); err != nil {
			return 0, nil, err
		}
	}
	return http.StatusOK, out, nil
}

// deliveries is `slipway events` without an instance: the webhook deliveries, each with only the
// outcomes of the tenants the actor may read; a delivery left with none is shown only to those
// who may read the whole fleet.
func (s *Server) deliveries(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return 0, nil, badRequest("limit: %q is not a number from 1 to 1000", v)
		}
		limit = n
	}
	evs, err := s.o.Client.Events(ctx, limit)
	if err != nil {
		return 0, nil, err
	}
	rd := s.readable(ctx, a)
	fleet, err := rd.Tenant("")
	if err != nil {
		return 0, nil, err
	}
	out := make([]client.DeliveryEvent, 0, len(evs))
	for _, ev := range evs {
		if ev.Outcomes, err = keep(rd, ev.Outcomes, func(o contract.DeliveryOutcome) string { return tenantOf(o.Instance) }); err != nil {
			return 0, nil, err
		}
		if fleet || len(ev.Outcomes) > 0 {
			out = append(out, ev)
		}
	}
	return http.StatusOK, out, nil
}

// events is `slipway events T/N`: the instance's log from entry ?from= on; with ?wait= it waits
// (at most maxWait) for an entry when there is none yet, which is how the CLI follows it; with
// ?follow=1 it is a stream of Server-Sent Events (follow.go).
func (s *Server) events(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	ref, err := s.readInstance(ctx, a, r)
	if err != nil {
		return 0, nil, err
	}
	q := r.URL.Query()
	from, wait := 0, time.Duration(0)
	if v := q.Get("from"); v != "" {
		if from, err = strconv.Atoi(v); err != nil || from < 0 {
			return 0, nil, badRequest("from: %q is not an entry number", v)
		}
	}
	if v := q.Get("wait"); v != "" {
		if wait, err = time.ParseDuration(v); err != nil || wait < 0 {
			return 0, nil, badRequest("wait: %q is not a duration such as 20s", v)
		}
	}
	if v := q.Get("follow"); v != "" {
		follow, err := strconv.ParseBool(v)
		if err != nil {
			return 0, nil, badRequest("follow: %q is not true or false", v)
		}
		if follow {
			if from, err = followFrom(r, from); err != nil {
				return 0, nil, err
			}
			if err := s.streams.take(streamKey(a), a.String()); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, eventStream{s: s, ref: ref, from: from, who: streamKey(a), until: tokenExpiry(r)}, nil
		}
	}
	out := []client.InstanceEvent{}
	n := 0
	if err := s.o.Client.InstanceEvents(ctx, ref, false, func(ev client.InstanceEvent) error {
		if n >= from {
			out = append(out, ev)
		}
		n++
		return nil
	}); err != nil {
		return 0, nil, err
	}
	if len(out) > 0 || wait == 0 {
		return http.StatusOK, out, nil
	}
	wctx, cancel := context.WithTimeout(ctx, min(wait, maxWait))
	defer cancel()
	n = 0
	err = s.o.Client.InstanceEvents(wctx, ref, true, func(ev client.InstanceEvent) error {
		if n < from {
			n++
			return nil
		}
		out = append(out, ev)
		return client.ErrStopEvents
	})
	if err != nil && (wctx.Err() == nil || ctx.Err() != nil) {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}
