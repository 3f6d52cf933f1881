package activities

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/policy"
)

// windowed are the operations change windows hold when they are requested (not at their
// approval step): those that change an instance. Plans, drift checks and reads never wait.
var windowed = []string{"provision", "deploy", "archive", "destroy", "deprovision"}

// Authorize asks the policy whether in.Actor may do in.Operation, and whether a person must
// approve first. Workflows run it as a local activity, so the decision (and the policy's hash)
// is recorded in history and replays. Bad input and a policy that cannot decide are
// non-retryable: the same input gets the same answer.
func (a *Activities) Authorize(ctx context.Context, in policy.Input) (policy.Decision, error) {
	e := a.Policy
	if e == nil {
		// A worker built without one (tests, benchmarks) gets the platform's default, never no policy.
		e = policy.Default()
	}
	if in.Fill == nil && slices.Contains(windowed, in.Operation) {
		stack, labels := windowScope(in)
		if ws := e.Windows().For(in.Tenant, stack, labels); len(ws) > 0 {
			st := ws.At(time.Now())
			in.Windows = &st
		}
	}
	if err := a.fill(ctx, &in); err != nil {
		return policy.Decision{}, err
	}
	d, err := e.Decide(ctx, in)
	if err == nil {
		d.Windows = in.Windows
		return d, nil
	}
	var (
		bad       *policy.InputError
		undecl    *policy.UndeclaredGroupError
		evalError *policy.EvalError
	)
	switch {
	case errors.As(err, &bad):
		return policy.Decision{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrPolicyInput, nil,
			[]contract.FieldError{{Field: bad.Field, Message: bad.Message}})
	case errors.As(err, &undecl), errors.As(err, &evalError):
		return policy.Decision{}, nonRetryable(contract.ErrPolicy, err)
	}
	return policy.Decision{}, err
}

// fill reads what in.Fill names into in: the saved plan's JSON (before and after values,
// sensitive ones masked) in place of the summary's actions, and the instance file's diff.
func (a *Activities) fill(ctx context.Context, in *policy.Input) error {
	f := in.Fill
	in.Fill = nil
	if f == nil {
		return nil
	}
	ref := contract.Ref{Tenant: f.Tenant, Name: f.Name}
	if f.PlanName != "" && a.Terraform != nil {
		raw, err := a.Terraform.PlanJSON(ctx, workspace(ref), f.PlanName)
		if err != nil {
			return classify(err)
		}
		if len(raw) > 0 { // a plan stored before its JSON was kept keeps the summary's actions
			in.Plan = raw
		}
	}
	if !f.Diff || a.Forge == nil {
		return nil
	}
	dir := ref.Dir()
	path := dir + "/" + instanceFile
	before := map[string][]byte{}
	if f.DeployedRevision != "" {
		files, err := a.Forge.ReadDir(ctx, f.DeployedRevision, dir)
		if err != nil {
			return classify(err)
		}
		if b, ok := files[instanceFile]; ok {
			before[path] = b
		}
	}
	after := map[string][]byte{path: []byte(f.ConfigYAML)}
	if f.ConfigYAML == "" {
		files, err := a.Forge.ReadDir(ctx, "", dir)
		if err != nil {
			return classify(err)
		}
		after = map[string][]byte{}
		if b, ok := files[instanceFile]; ok {
			after[path] = b
		}
	}
	in.ConfigDiff = config.Diff(before, after)
	return nil
}

// windowScope is the stack and labels the windows are chosen by: those of the config a provision
// or deploy brings (a first provision's instance has no stack yet), else the instance's.
func windowScope(in policy.Input) (string, map[string]string) {
	var req struct {
		ConfigYAML string `json:"configYAML"`
	}
	if raw, err := json.Marshal(in.Request); err == nil && json.Unmarshal(raw, &req) == nil && req.ConfigYAML != "" {
		if inst, err := config.ParseInstance([]byte(req.ConfigYAML)); err == nil {
			stack, _, _ := strings.Cut(inst.Stack, "@")
			return stack, inst.Labels
		}
	}
	return in.Stack.Name, in.Labels
}
