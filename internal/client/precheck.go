package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Precheck refuses, before anything is sent, an operation the instance cannot take now: a state
// that does not allow it, a wait at scheduling gates, a config its stack refuses (validated on a
// worker) or, for a provision, names another instance holds. The CLI and `slipway server` both
// run it, so a request says the same thing whichever way it comes.
// It returns the status it read (nil for a provision).
func (c *Client) Precheck(ctx context.Context, ref contract.Ref, op lifecycle.Operation, req contract.OperationRequest) (*contract.Status, error) {
	var st *contract.Status
	deployed := ""
	if op != lifecycle.OpProvision {
		var err error
		if st, err = c.Status(ctx, ref, contract.StatusRequest{}); err != nil {
			return nil, err
		}
		if w := st.Waiting; w != nil && op != lifecycle.OpPlan {
			return nil, &RejectedError{Busy: true, Message: fmt.Sprintf("%s is busy: %s waiting at scheduling gates (%s) since %s; %s is rejected, not queued — remove the gates, or slipway cancel %s",
				ref, w.Operation, GateNames(st.Gates), w.Since.UTC().Format(time.RFC3339), op, ref)}
		}
		// A teardown during a provision or deploy is the workflow's to decide: it stops it first (PreTerminate).
		preTerminate := op.Terminates() && st.State.Cancellable()
		if err := lifecycle.Check(st.State, op); err != nil && !preTerminate {
			return nil, &RejectedError{Message: ref.String() + ": " + err.Error()}
		}
		if req.Recreate && (op != lifecycle.OpDeploy || st.State != lifecycle.Deployed || req.ConfigYAML != "") {
			return nil, &RejectedError{Message: fmt.Sprintf("%s: recreate replaces a Deployed instance's workload, as it is; the instance is %s", ref, st.State)}
		}
		deployed = st.Deployed
	}
	if req.ConfigYAML != "" {
		in := contract.ValidateInput{Ref: ref, ConfigYAML: req.ConfigYAML, DeployedRevision: deployed}
		if _, err := c.Validate(ctx, in); err != nil {
			return nil, err
		}
	}
	if op == lifecycle.OpProvision {
		return nil, c.CheckNames(ctx, ref)
	}
	return st, nil
}

// GateNames lists gates by name, or "none".
func GateNames(gs []contract.Gate) string {
	if len(gs) == 0 {
		return "none"
	}
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}
