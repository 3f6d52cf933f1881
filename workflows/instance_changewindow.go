package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/internal/windows"
)

// Change windows (data.slipway.windows in the platform's policy bundle). The Authorize decision of
// an operation that changes the instance says where it stands in the windows that cover it; one
// outside them is accepted and then held here, durably (a timer in this workflow), visibly
// (Scheduled=False, the search attribute InstanceWindowOpensAt) and cancellably (slipway cancel),
// until the next opening, when the policy is asked again. Operations no window covers, plans and
// every decision recorded before windows existed carry no window status, so nothing is added to
// their histories.

var errNoWindow = errors.New("no change window opens for it within a year")

// windowError says the operation ended without starting because of the windows.
type windowError struct{ err error }

func (e *windowError) Error() string { return e.err.Error() }

// keepWindow records where the update being authorized stands in the windows.
func (e *entity) keepWindow(ctx workflow.Context, d policy.Decision) {
	if d.Windows == nil {
		return
	}
	id := requestID(ctx)
	if e.windowOf == nil {
		e.windowOf = map[string]*windows.Status{}
	}
	e.windowOf[id] = d.Windows
}

// takeWindow is where the operation ctx handles stood in the windows when it was authorized.
func (e *entity) takeWindow(ctx workflow.Context) *windows.Status {
	if len(e.windowOf) == 0 {
		return nil
	}
	id := requestID(ctx)
	st := e.windowOf[id]
	delete(e.windowOf, id)
	return st
}

// requestID is the update ctx handles; "" for an operation the workflow starts itself (expiry).
func requestID(ctx workflow.Context) string {
	if _, ok := onBehalf(ctx); ok || ctx.Value(ownOperationKey{}) != nil {
		return ""
	}
	if u := workflow.GetCurrentUpdateInfo(ctx); u != nil {
		return u.ID
	}
	return ""
}

// admitOverrideWindow: an override says why (the policy decides who: platform admins by default).
func (e *entity) admitOverrideWindow(op lifecycle.Operation, req contract.OperationRequest) error {
	if !req.OverrideWindow {
		return nil
	}
	if op == lifecycle.OpPlan {
		return notAllowed("%s: --override-window: a plan is never held by change windows", e.s.Ref)
	}
	if req.Reason == "" {
		return notAllowed("%s: --override-window needs --reason: the override is recorded with who asked and why", e.s.Ref)
	}
	return nil
}

// awaitWindow holds kind until its change window opens; nil when it may start now.
func (e *entity) awaitWindow(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest, st *windows.Status) error {
	if st == nil || st.Open || kind == lifecycle.OpPlan || req.OverrideWindow {
		return nil
	}
	e.cancelled = false
	e.s.Waiting = &contract.GateWait{Operation: kind, Actor: req.Actor, Since: workflow.Now(ctx)}
	defer func() { e.s.Waiting, e.holding = nil, ""; e.upsertSearchAttributes(ctx) }()
	for {
		if st.Next.IsZero() {
			return &windowError{errNoWindow}
		}
		next := st.Next
		e.s.Waiting.Window = &next
		e.holding = fmt.Sprintf("%s waiting for the change window opening at %s", kind, stamp(next))
		e.upsertSearchAttributes(ctx)
		if _, err := workflow.AwaitWithTimeout(ctx, next.Sub(workflow.Now(ctx)), func() bool { return e.cancelled }); err != nil {
			return err
		}
		if e.cancelled {
			return errGateCancelled
		}
		// Re-checked at the opening: the policy and the windows may have changed meanwhile.
		var err error
		if st, err = e.recheckWindow(ctx, kind, req); err != nil {
			return &windowError{err}
		}
		if st == nil || st.Open {
			return nil
		}
	}
}

// recheckWindow asks the policy again for kind, as authorize did, and returns the windows now.
func (e *entity) recheckWindow(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest) (*windows.Status, error) {
	actor, ok := verifiedActor(ctx)
	if !ok {
		return nil, nil
	}
	in := e.policyInput(actor, string(kind), []any{req})
	var d policy.Decision
	if err := quick(ctx, true, contract.ActAuthorize, in).Get(ctx, &d); err != nil {
		return nil, err
	}
	if !d.Allow {
		return nil, temporal.NewNonRetryableApplicationError("denied by policy "+shortHash(d.PolicyHash)+" when the window opened: "+d.Reason, ErrPolicyDenied, nil)
	}
	return d.Windows, nil
}

// windowCondition is Scheduled=False while an operation waits for its window; nil otherwise.
func (e *entity) windowCondition() *lifecycle.Condition {
	w := e.s.Waiting
	if w == nil || w.Window == nil {
		return nil
	}
	c := cond(contract.CondScheduled, lifecycle.ConditionFalse, "OutsideChangeWindow",
		fmt.Sprintf("%s waiting for the change window opening at %s (since %s)", w.Operation, stamp(*w.Window), stamp(w.Since)))
	return &c
}

// windowOpens sets InstanceWindowOpensAt while an operation waits for a window, and unsets it
// after; it reads what the run holds (a read adds no command), so runs that never waited never
// upsert it, lean or not.
func (u *saUpdates) windowOpens(cur temporal.SearchAttributes, w *contract.GateWait) {
	k := contract.SAInstanceWindowOpensAt
	old, had := cur.GetTime(k)
	switch {
	case w != nil && w.Window != nil:
		if !had || !old.Equal(*w.Window) {
			u.updates = append(u.updates, k.ValueSet(*w.Window))
		}
	case had:
		u.updates = append(u.updates, k.ValueUnset())
	}
}

// expiresAt sets InstanceExpiresAt while the instance has an expiry; like windowOpens, runs of
// instances that never expire never upsert it.
func (u *saUpdates) expiresAt(cur temporal.SearchAttributes, x *contract.Expiry) {
	k := contract.SAInstanceExpiresAt
	old, had := cur.GetTime(k)
	switch {
	case x != nil:
		if !had || !old.Equal(x.At) {
			u.updates = append(u.updates, k.ValueSet(x.At))
		}
	case had:
		u.updates = append(u.updates, k.ValueUnset())
	}
}
