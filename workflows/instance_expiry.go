package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// Instance expiry. A config that sets expires (or expiresAt) gives the instance an end, within its
// stack's maximum (schema.expiry); the instance workflow keeps it with a timer of its own, only
// for such instances: Expiring notifications at each of the stack's warn points, then the stack's
// action (archive or destroy) at the end, decided by the policy as the person who set it and held
// by the change windows like any operation. extend moves the end on, within the maximum.

// onBehalfKey carries the person an operation the workflow starts itself (expiry) is for.
type onBehalfKey struct{}

// ownOperationKey marks the context of an operation the workflow starts itself: no update carries it.
type ownOperationKey struct{}

// recordExpiry keeps the expiry a provision's or deploy's config sets (or clears it when the config
// sets none), and starts its timer.
func (e *entity) recordExpiry(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest, valid contract.ValidateOutput) error {
	if kind != lifecycle.OpProvision && kind != lifecycle.OpDeploy || (valid.Expiry == nil && e.s.Expiry == nil) {
		return nil
	}
	if valid.Expiry != nil && e.s.Protection != nil {
		return notAllowed("%s: expires: the instance is protected from deletion (by %s): a protected instance cannot expire", e.s.Ref, e.s.Protection.Actor)
	}
	if !runsExpiry(ctx) {
		return nil
	}
	if req.Rollout != "" && valid.Expiry != nil && e.s.Expiry != nil {
		return nil // a rollout's deploy carries the file's expiry: the end and who set it stay
	}
	e.expiryChanged++
	if valid.Expiry == nil {
		e.s.Expiry = nil
		e.upsertSearchAttributes(ctx)
		return nil
	}
	x := &contract.Expiry{ExpiryPlan: *valid.Expiry, Actor: req.Actor, SetAt: workflow.Now(ctx)}
	if a, ok := verifiedActor(ctx); ok {
		x.SetBy, x.Actor = &a, a.String()
	}
	x.Warned = passedWarnings(x, x.SetAt)
	e.s.Expiry = x
	e.upsertSearchAttributes(ctx)
	return nil
}

// passedWarnings counts the warn points of x already behind now: they are not sent late.
func passedWarnings(x *contract.Expiry, now time.Time) int {
	n := 0
	for _, w := range x.Warn {
		if !x.At.Add(-w).After(now) {
			n++
		}
	}
	return n
}

// expiryClock is the expiry's timer, armed and read by the main loop: a coroutine of its own per
// expiring instance cost each cached one about 16 KiB (10,000 parked went over 200 MiB).
type expiryClock struct {
	timer   workflow.Future // the next warn point or the end; nil when none is armed
	cancel  workflow.CancelFunc
	armed   int  // expiryChanged when armed: a change arms it again
	due     bool // the point was already reached when armed
	warning bool // the point is a warn point, not the end
}

// expiryWake says the main loop has expiry work: a timer to arm or cancel, or a point reached
// (the end waits for a running operation to finish).
func (e *entity) expiryWake() bool {
	c := &e.clock
	switch {
	case e.s.Expiry == nil || e.acting:
		return c.timer != nil
	case c.armed != e.expiryChanged || c.timer == nil && !c.due:
		return true
	case !c.due && !c.timer.IsReady():
		return false
	}
	return c.warning || !e.busy
}

// tickExpiry arms the expiry's timer again, sends a warning, or starts the stack's action at the end.
func (e *entity) tickExpiry(ctx workflow.Context) {
	c, x := &e.clock, e.s.Expiry
	fired := x != nil && c.armed == e.expiryChanged && (c.due || c.timer != nil && c.timer.IsReady())
	if c.cancel != nil && !fired {
		c.cancel()
	}
	warning := c.warning
	*c = expiryClock{}
	switch {
	case x == nil || e.acting:
		return
	case fired && warning:
		x.Warned++
		e.notify(ctx, notify.KindExpiring, fmt.Sprintf("%s expires at %s (in %s): its stack then runs %s; slipway extend %s --by DURATION moves it",
			e.s.Ref, stamp(x.At), x.At.Sub(workflow.Now(ctx)).Round(time.Minute), x.Action, e.s.Ref), nil)
	case fired:
		e.s.Expiry = nil
		e.upsertSearchAttributes(ctx)
		e.acting = true
		workflow.Go(ctx, func(ctx workflow.Context) {
			e.runExpiry(ctx, x)
			e.acting = false
		})
		return
	}
	next, warn := x.At, x.Warned < len(x.Warn)
	if warn {
		next = x.At.Add(-x.Warn[x.Warned])
	}
	c.armed, c.warning = e.expiryChanged, warn
	if d := next.Sub(workflow.Now(ctx)); d > 0 {
		var tctx workflow.Context
		tctx, c.cancel = workflow.WithCancel(ctx)
		c.timer = workflow.NewTimer(tctx, d)
	} else {
		c.due = true
	}
}

// runExpiry runs x's action as who set it: the policy decides, the change windows hold it.
func (e *entity) runExpiry(ctx workflow.Context, x *contract.Expiry) {
	kind := lifecycle.OpArchive
	if x.Action == "destroy" {
		kind = lifecycle.OpDestroy
	}
	ctx = workflow.WithValue(ctx, ownOperationKey{}, true)
	req := contract.OperationRequest{Actor: "expiry set by " + x.Actor, Reason: "expired at " + stamp(x.At)}
	fail := func(err error) {
		e.notify(ctx, notify.KindFailed, fmt.Sprintf("%s expired at %s, but its %s did not start: %s", e.s.Ref, stamp(x.At), kind, errorMessage(err)), nil)
	}
	if err := e.admitOperation(kind, req); err != nil {
		fail(err)
		return
	}
	if x.SetBy != nil {
		ctx = workflow.WithValue(ctx, onBehalfKey{}, *x.SetBy)
		if err := e.authorize(ctx, *x.SetBy, string(kind), []any{req}); err != nil {
			fail(err)
			return
		}
	}
	if _, err := e.operate(ctx, kind, req); err != nil {
		fail(err)
	}
}

// admitExtend: an expiry to move, by a positive duration, to no more than the stack's maximum from now.
func (e *entity) admitExtend(now time.Time, req contract.ExtendRequest) error {
	x := e.s.Expiry
	switch {
	case x == nil:
		return notAllowed("%s does not expire: nothing to extend (set expires in its instance file)", e.s.Ref)
	case req.By <= 0:
		return notAllowed("%s: --by must be a positive duration, such as 48h", e.s.Ref)
	case x.Max > 0 && x.At.Add(req.By).Sub(now) > x.Max:
		return notAllowed("%s: --by %s would end it at %s, over the stack's maximum of %s from now (schema.expiry.max); at most --by %s",
			e.s.Ref, req.By, stamp(x.At.Add(req.By)), x.Max, (x.Max - x.At.Sub(now)).Truncate(time.Minute))
	}
	return nil
}

func (e *entity) registerExpiry(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateExtend,
		func(ctx workflow.Context, req contract.ExtendRequest) (*contract.Expiry, error) {
			if err := e.admitExtend(workflow.Now(ctx), req); err != nil {
				return nil, err
			}
			x := *e.s.Expiry
			x.At, x.SetAt, x.Actor = x.At.Add(req.By), workflow.Now(ctx), req.Actor
			if a, ok := verifiedActor(ctx); ok {
				x.SetBy, x.Actor = &a, a.String()
			}
			x.Warned = passedWarnings(&x, x.SetAt)
			e.s.Expiry = &x
			e.expiryChanged++
			e.upsertSearchAttributes(ctx)
			return e.s.Expiry, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.ExtendRequest) error {
			return e.admitExtend(workflow.Now(ctx), req)
		}})
}

// onBehalf is the person an operation the workflow started itself is for.
func onBehalf(ctx workflow.Context) (identity.Actor, bool) {
	a, ok := ctx.Value(onBehalfKey{}).(identity.Actor)
	return a, ok
}
