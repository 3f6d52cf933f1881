package attest

import (
	"context"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/identity"
)

// KindQuery attests a query: it changes nothing, but what it answers may depend on who asks
// (the plan awaiting approval is shown only to those who may approve it).
const KindQuery = "query"

// QueryWorkflow signs the query for identity.From(ctx), else the fallback. A query that cannot be
// signed is sent unsigned: it is still answered, as to someone unknown.
func (o *clientOutbound) QueryWorkflow(ctx context.Context, in *interceptor.ClientQueryWorkflowInput) (converter.EncodedValue, error) {
	if interceptor.Header(ctx) != nil {
		_ = o.sign(ctx, in.WorkflowID, KindQuery, in.QueryType, in.Args...)
	}
	return o.Next.QueryWorkflow(ctx, in)
}

// querier holds the verified actor of the query being answered: query handlers get no context,
// so the workflow's own context carries this holder, set around each query. Queries are answered
// one at a time on the workflow's thread, and never replayed.
type querier struct {
	actor identity.Actor
	ok    bool
}

type querierKey struct{}

// Querier returns the verified actor of the query being answered, from the workflow's context
// (any context derived from the one the workflow function got).
func Querier(ctx workflow.Context) (identity.Actor, bool) {
	q, _ := ctx.Value(querierKey{}).(*querier)
	if q == nil || !q.ok {
		return identity.Actor{}, false
	}
	return q.actor, true
}

// withQuerier gives a run's context the holder its queries' actors are put in.
func (i *inbound) withQuerier(ctx workflow.Context) workflow.Context {
	if i.q == nil {
		i.q = &querier{}
	}
	return workflow.WithValue(ctx, querierKey{}, i.q)
}

// HandleQuery verifies the query's attestation, if any, against the wall clock (a query is not
// in history, so nothing replays it) and holds its actor while the handler answers.
func (i *inbound) HandleQuery(ctx workflow.Context, in *interceptor.HandleQueryInput) (any, error) {
	if i.q == nil {
		return i.Next.HandleQuery(ctx, in)
	}
	if d, err := Digest(in.Args...); err == nil {
		actor, err := i.w.k.check(interceptor.WorkflowHeader(ctx), Request{Target: workflow.GetInfo(ctx).WorkflowExecution.ID,
			Kind: KindQuery, Name: in.QueryType, Digest: d, Now: time.Now()}, i.w.dc)
		i.q.actor, i.q.ok = actor, err == nil
	}
	defer func() { i.q.actor, i.q.ok = identity.Actor{}, false }()
	return i.Next.HandleQuery(ctx, in)
}
