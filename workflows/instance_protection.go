package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Deletion protection. A config that says protected: true (or whose stack's schema does) marks the
// instance protected when a provision or deploy of it is accepted; from then the update validator
// refuses destroy and deprovision, whoever sends them (CLI, API, webhook, rollout, expiry), until a
// platform admin's unprotect (a policy decision, audited). Removing the field does not unprotect:
// a tenant could otherwise deploy it away and destroy. Setting it adds no command.

// recordProtection protects the instance when the config a provision or deploy brings says so.
func (e *entity) recordProtection(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest, valid contract.ValidateOutput) {
	if valid.Protected == "" || e.s.Protection != nil || (kind != lifecycle.OpProvision && kind != lifecycle.OpDeploy) {
		return
	}
	why := "protected: true in the instance file"
	if valid.Protected == "stack" {
		why = "protected: true in the stack's schema"
	}
	actor := req.Actor
	if a, ok := verifiedActor(ctx); ok {
		actor = a.String()
	}
	e.s.Protection = &contract.Protection{Source: valid.Protected, Actor: actor, Reason: why, At: workflow.Now(ctx)}
}

// admitProtected refuses a destroy or deprovision of a protected instance, to everyone.
func (e *entity) admitProtected(op lifecycle.Operation) error {
	p := e.s.Protection
	if !tearsDown(op) || p == nil {
		return nil
	}
	return notAllowed("%s: %s refused: the instance is protected from deletion (since %s, by %s: %s); a platform admin must first run slipway unprotect %s --reason TEXT",
		e.s.Ref, op, p.At.UTC().Format("2006-01-02T15:04:05Z"), p.Actor, p.Reason, e.s.Ref)
}

func (e *entity) admitProtect(req contract.ProtectRequest) error {
	if x := e.s.Expiry; x != nil {
		return notAllowed("%s expires at %s: an expiring instance cannot be protected; deploy a config without expires first", e.s.Ref, stamp(x.At))
	}
	if e.s.Protection != nil {
		return notAllowed("%s is already protected (since %s, by %s)", e.s.Ref, e.s.Protection.At.UTC().Format("2006-01-02T15:04:05Z"), e.s.Protection.Actor)
	}
	if op := e.s.Current; e.busy && op != nil && tearsDown(op.Kind) {
		return notAllowed("%s: a %s is running; it cannot be protected now", e.s.Ref, op.Kind)
	}
	return nil
}

func (e *entity) admitUnprotect(req contract.ProtectRequest) error {
	if strings.TrimSpace(req.Reason) == "" {
		return notAllowed("%s: unprotect needs a reason (--reason): it is recorded with who asked", e.s.Ref)
	}
	if e.s.Protection == nil {
		return notAllowed("%s is not protected", e.s.Ref)
	}
	return nil
}

// registerProtection registers protect and unprotect. Who may send them is the policy's
// (the default: unprotect only a platform admin); the authorization is in the audit log.
func (e *entity) registerProtection(ctx workflow.Context) error {
	handlers := map[string]struct {
		admit func(contract.ProtectRequest) error
		apply func(workflow.Context, contract.ProtectRequest)
	}{
		contract.UpdateProtect: {e.admitProtect, func(ctx workflow.Context, req contract.ProtectRequest) {
			e.s.Protection = &contract.Protection{Source: "cli", Actor: req.Actor, Reason: req.Reason, At: workflow.Now(ctx)}
		}},
		contract.UpdateUnprotect: {e.admitUnprotect, func(ctx workflow.Context, req contract.ProtectRequest) {
			e.s.Protection = nil
		}},
	}
	for _, name := range []string{contract.UpdateProtect, contract.UpdateUnprotect} {
		h := handlers[name]
		err := workflow.SetUpdateHandlerWithOptions(ctx, name,
			func(ctx workflow.Context, req contract.ProtectRequest) (*contract.Protection, error) {
				if err := h.admit(req); err != nil {
					return nil, err
				}
				if a, ok := verifiedActor(ctx); ok {
					req.Actor = a.String()
				}
				h.apply(ctx, req)
				return e.s.Protection, nil
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.ProtectRequest) error { return h.admit(req) }})
		if err != nil {
			return err
		}
	}
	return nil
}
