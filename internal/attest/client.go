package attest

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"

	"github.com/slipway-dev/slipway/internal/identity"
)

// ClientInterceptor signs every start, signal and update a client sends for identity.From(ctx),
// else for fallback (the component itself). dc, if given, seals the header (the client's payload
// converter, with its codec); else it is plain JSON.
func ClientInterceptor(k *Keyring, fallback identity.Actor, dc ...converter.DataConverter) interceptor.ClientInterceptor {
	c := &clientInterceptor{k: k, fallback: fallback, dc: converter.GetDefaultDataConverter()}
	if len(dc) > 0 && dc[0] != nil {
		c.dc = dc[0]
	}
	return c
}

type clientInterceptor struct {
	interceptor.ClientInterceptorBase
	k        *Keyring
	fallback identity.Actor
	dc       converter.DataConverter
}

func (c *clientInterceptor) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	o := &clientOutbound{c: c}
	o.Next = next
	return o
}

type clientOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	c *clientInterceptor
}

// sign adds the attestation of one request to ctx's outgoing header.
func (o *clientOutbound) sign(ctx context.Context, target, kind, name string, args ...any) error {
	h := interceptor.Header(ctx)
	if h == nil {
		return fmt.Errorf("attest: no header to sign %s %q into", kind, name)
	}
	actor, ok := identity.From(ctx)
	if !ok || actor.IsZero() {
		actor = o.c.fallback
	}
	a, err := o.c.k.Sign(actor, target, kind, name, time.Now(), args...)
	if err != nil {
		return err
	}
	return add(h, a, o.c.dc)
}

func (o *clientOutbound) ExecuteWorkflow(ctx context.Context, in *interceptor.ClientExecuteWorkflowInput) (client.WorkflowRun, error) {
	if err := o.sign(ctx, in.Options.ID, KindStart, in.WorkflowType, in.Args...); err != nil {
		return nil, err
	}
	return o.Next.ExecuteWorkflow(ctx, in)
}

func (o *clientOutbound) SignalWorkflow(ctx context.Context, in *interceptor.ClientSignalWorkflowInput) error {
	if err := o.sign(ctx, in.WorkflowID, KindSignal, in.SignalName, in.Arg); err != nil {
		return err
	}
	return o.Next.SignalWorkflow(ctx, in)
}

func (o *clientOutbound) SignalWithStartWorkflow(ctx context.Context, in *interceptor.ClientSignalWithStartWorkflowInput) (client.WorkflowRun, error) {
	if err := o.sign(ctx, in.Options.ID, KindStart, in.WorkflowType, in.Args...); err != nil {
		return nil, err
	}
	if err := o.sign(ctx, in.Options.ID, KindSignal, in.SignalName, in.SignalArg); err != nil {
		return nil, err
	}
	return o.Next.SignalWithStartWorkflow(ctx, in)
}

func (o *clientOutbound) UpdateWorkflow(ctx context.Context, in *interceptor.ClientUpdateWorkflowInput) (client.WorkflowUpdateHandle, error) {
	if err := o.sign(ctx, in.WorkflowID, KindUpdate, in.UpdateName, in.Args...); err != nil {
		return nil, err
	}
	return o.Next.UpdateWorkflow(ctx, in)
}

func (o *clientOutbound) UpdateWithStartWorkflow(ctx context.Context, in *interceptor.ClientUpdateWithStartWorkflowInput) (client.WorkflowUpdateHandle, error) {
	target := in.UpdateOptions.WorkflowID
	// The SDK hides the start operation's options and arguments, so the caller names them (WithStart);
	// without that the start goes unsigned and the worker refuses it.
	if s, ok := ctx.Value(startKey{}).(startOf); ok {
		if target == "" {
			target = s.id
		}
		if err := o.sign(ctx, s.id, KindStart, s.workflowType, s.args...); err != nil {
			return nil, err
		}
	}
	if err := o.sign(ctx, target, KindUpdate, in.UpdateOptions.UpdateName, in.UpdateOptions.Args...); err != nil {
		return nil, err
	}
	return o.Next.UpdateWithStartWorkflow(ctx, in)
}

type startKey struct{}

type startOf struct {
	id, workflowType string
	args             []any
}

// WithStart returns ctx naming the start half of an UpdateWithStartWorkflow (the workflow ID,
// type and arguments given to client.NewWithStartWorkflowOperation), so that half is signed too.
func WithStart(ctx context.Context, workflowID, workflowType string, args ...any) context.Context {
	return context.WithValue(ctx, startKey{}, startOf{id: workflowID, workflowType: workflowType, args: args})
}
