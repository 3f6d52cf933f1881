package activities

import (
	"context"
	"errors"
	"fmt"
	"github.com/slipway-dev/slipway/internal/identity"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// CheckDrift plans the deployed revision against the refreshed state and asks the deployer
// whether the app is still in sync. It never applies, and writes no state: the instance runs
// it only while it holds no operation.
func (a *Activities) CheckDrift(ctx context.Context, in contract.DriftInput) (contract.DriftOutput, error) {
	ctx = withLockNote(ctx)
	tin := contract.TerraformInput{Ref: in.Ref, OpID: in.CheckID, Revision: in.Revision}
	files, all, err := a.terraformFiles(ctx, tin)
	if err != nil {
		return contract.DriftOutput{}, err
	}
	var facts stackFacts
	if stack := stackOf(all); stack != "" {
		if facts, err = a.stackFacts(ctx, in.Revision, stack); err != nil {
			return contract.DriftOutput{}, err
		}
	}
	// Init and the plan run under the stack's plan budget, as a deploy's plan step does; the
	// step's own hour still bounds a longer one (the instance keeps no budgets between operations).
	var budget *contract.Budget
	if b, ok := facts.budgets.For("plan"); ok {
		budget = &b
	}
	bctx, cancel := withBudget(ctx, budget)
	defer cancel()
	if err := a.prepareFiles(bctx, in.Ref, all, in.Revision, facts.credentials, files, false); err != nil {
		return contract.DriftOutput{}, overBudget(bctx, err)
	}
	var rep *terraform.DriftReport
	err = withHeartbeat(bctx, "terraform plan (drift)", func(ctx context.Context) error {
		var err error
		rep, err = a.Terraform.Drift(ctx, workspace(in.Ref))
		return err
	})
	if err != nil {
		return contract.DriftOutput{}, overBudget(bctx, classify(err))
	}
	out := contract.DriftOutput{Outside: changeLines(rep.Outside), Pending: changeLines(rep.Pending)}
	if out.App, err = a.appDrift(ctx, in); err != nil {
		return contract.DriftOutput{}, err
	}
	out.Drifted = len(out.Resources()) > 0
	return out, nil
}

// appDrift lists the app's resources the deployer reports out of sync with the revision.
func (a *Activities) appDrift(ctx context.Context, in contract.DriftInput) ([]string, error) {
	app, _, err := a.app(ctx, in.Ref, in.Revision)
	if err != nil {
		return nil, err
	}
	st, err := a.Deployer.Status(ctx, app)
	if err != nil {
		return nil, classify(err)
	}
	if !st.Deployed || st.Sync != "OutOfSync" {
		return nil, nil
	}
	var out []string
	for _, r := range st.Resources {
		if r.RsyncStatus != "Applied" || r.ClusterStatus != "Present" {
			out = append(out, fmt.Sprintf("%s %s/%s (%s, %s)", r.Kind, r.Namespace, r.Name, r.RsyncStatus, r.ClusterStatus))
		}
	}
	if len(out) == 0 {
		out = []string{fmt.Sprintf("app %s: %s reports OutOfSync", st.Application, st.Deployer)}
	}
	return out, nil
}

func changeLines(rcs []terraform.ResourceChange) []string {
	out := make([]string, 0, len(rcs))
	for _, rc := range rcs {
		out = append(out, fmt.Sprintf("%s (%s)", rc.Address, strings.Join(rc.Actions, ", ")))
	}
	return out
}

// ListDeployed lists the Deployed instances a drift sweep checks.
func (a *Activities) ListDeployed(ctx context.Context, scope contract.DriftScope) ([]contract.ListedInstance, error) {
	if a.Instances == nil {
		return nil, notAllowedf("this worker has no Temporal client to list instances")
	}
	if err := a.scheduled(ctx); err != nil {
		return nil, err
	}
	all, err := a.Instances.List(ctx, scope.Stack, scope.Tenant)
	if err != nil {
		return nil, err
	}
	return deployedOnly(all), nil
}

// deployedOnly keeps the Deployed instances of listed: the only ones a sweep checks.
func deployedOnly(listed []contract.ListedInstance) []contract.ListedInstance {
	var out []contract.ListedInstance
	for _, li := range listed {
		if li.State == string(lifecycle.Deployed) {
			out = append(out, li)
		}
	}
	return out
}

// ListDeployedPage lists one page of a sweep's scope and keeps its Deployed instances: the visibility
// store's token, not the fleet, is what a sweep carries from run to run.
func (a *Activities) ListDeployedPage(ctx context.Context, in contract.DriftPageInput) (contract.DriftPage, error) {
	if a.Instances == nil {
		return contract.DriftPage{}, notAllowedf("this worker has no Temporal client to list instances")
	}
	if err := a.scheduled(ctx); err != nil {
		return contract.DriftPage{}, err
	}
	page, next, err := a.Instances.ListPage(ctx, in.Stack, in.Tenant, in.Size, in.Page)
	if err != nil {
		return contract.DriftPage{}, err
	}
	return contract.DriftPage{Instances: deployedOnly(page), Next: next}, nil
}

// DriftInstance asks one instance to check itself and, under RemediateDeploy, sends a drifted
// one a normal deploy. Request IDs derive from the sweep, so a retry asks once.
func (a *Activities) DriftInstance(ctx context.Context, in contract.DriftInstanceInput) (contract.DriftInstanceOutput, error) {
	if a.Instances == nil {
		return contract.DriftInstanceOutput{}, notAllowedf("this worker has no Temporal client to reach instances")
	}
	if err := a.scheduled(ctx); err != nil {
		return contract.DriftInstanceOutput{}, err
	}
	out := contract.DriftInstanceOutput{Ref: in.Ref}
	if in.OnBehalfOf != nil {
		// Checked and remediated for the sweep's requester: the policy decides on them.
		ctx = identity.With(ctx, *in.OnBehalfOf)
	}
	var res contract.DriftOutput
	err := withHeartbeat(ctx, "drift check of "+in.Ref.String(), func(ctx context.Context) error {
		var err error
		res, err = a.Instances.CheckDrift(ctx, in.Ref, in.Sweep, in.Sweep+"/"+in.Ref.String())
		return err
	})
	var refused *RefusedError
	switch {
	case errors.As(err, &refused) && refused.Busy:
		out.Outcome, out.Message = contract.DriftBusy, refused.Error()
		return out, nil
	case errors.As(err, &refused):
		out.Outcome, out.Message = contract.DriftRefused, refused.Error()
		return out, nil
	case err != nil:
		return out, err
	case !res.Drifted:
		out.Outcome = contract.DriftClean
		return out, nil
	}
	out.Outcome, out.Resources = contract.DriftFound, res.Resources()
	if in.Remediate != contract.RemediateDeploy {
		return out, nil
	}
	switch err := a.Instances.Deploy(ctx, in.Ref, "", "", in.Sweep, in.Sweep+"/"+in.Ref.String()+"/deploy", contract.PriorityDrift); {
	case err == nil:
		out.Outcome, out.Message = contract.DriftRemediated, "deploy sent (remediate: deploy)"
	case errors.As(err, &refused):
		out.Message = "remediation refused: " + refused.Error()
	default:
		return out, err
	}
	return out, nil
}
