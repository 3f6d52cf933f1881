package apiserver

import (
	"context"
	"strings"

	"github.com/slipway-dev/slipway/internal/policy"
)

// PolicyAuthorize decides the server's own requests with the platform's policy. A request over
// many instances (a drift sweep, a rollout) names instance "*", and tenant "*" when its scope
// names none: the default policy lets only platform admins act on every tenant.
func PolicyAuthorize(e *policy.Engine) Authorize {
	return func(ctx context.Context, c Check) (bool, string, string, error) {
		in := policy.Input{Actor: c.Actor, Operation: c.Operation, Tenant: orStar(c.Tenant), Name: orStar(c.Name), State: c.State,
			NextState: c.NextState, Stack: policy.Stack{Name: c.Stack}, Instances: c.Instances, Request: c.Request}
		d, err := e.Decide(ctx, in)
		if err != nil {
			return false, "", e.Hash(), err
		}
		if d.Allow && d.Approval != nil && !c.Waits {
			// Nothing waits for an approval here: a request that needs one is refused, saying so.
			return false, "needs approval by " + strings.Join(d.Approval.Groups, ", ") + ", which this request cannot wait for: " + d.Reason, d.PolicyHash, nil
		}
		return d.Allow, d.Reason, d.PolicyHash, nil
	}
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}
