package client

import (
	"context"
	"errors"
	"strings"

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
		// The workflow's update validator decides admission (lifecycle.Admit on its own state); the same
		// check on the status read here only refuses before a config is validated on a worker.
		if err := admit(ref, st, op, req); err != nil {
			return nil, err
		}
		deployed = st.Deployed
	}
	if req.ConfigYAML != "" || req.To != "" {
		// Refused before the update is accepted, so a bad config records nothing; the validate activity
		// run here is the pipeline's validate step's, which stays the authority at run time.
		in := contract.ValidateInput{Ref: ref, ConfigYAML: req.ConfigYAML, DeployedRevision: deployed, To: req.To}
		if _, err := c.Validate(ctx, in); err != nil {
			return nil, err
		}
	}
	if op == lifecycle.OpProvision {
		return nil, c.CheckNames(ctx, ref)
	}
	return st, nil
}

// admit runs lifecycle's admission on a status: it shows a wait at gates, not the finer points of
// a running operation (one starting, one being stopped), which the workflow's validator sees.
func admit(ref contract.Ref, st *contract.Status, op lifecycle.Operation, req contract.OperationRequest) error {
	a := lifecycle.Admission{Ref: ref.String(), State: st.State, CanStop: st.State.Cancellable()}
	if w := st.Waiting; w != nil && w.Window != nil {
		a.Holder = lifecycle.WindowHolder(a.Ref, w.Operation, *w.Window, w.Since)
	} else if w != nil {
		a.Holder = lifecycle.GateHolder(a.Ref, w.Operation, GateNames(st.Gates), w.Since)
	}
	err := lifecycle.Admit(a, op)
	if err == nil && req.Recreate {
		err = lifecycle.AdmitRecreate(a.Ref, st.State, op, req.ConfigYAML != "")
	}
	if err != nil {
		var busy *lifecycle.BusyError
		return &RejectedError{Message: err.Error(), Busy: errors.As(err, &busy)}
	}
	return nil
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
