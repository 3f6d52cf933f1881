package activities

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/planprint"
)

// maxPreviewDiff bounds one instance's manifest diff in the preview's history.
const maxPreviewDiff = 4 << 10

// ListPreview lists the instances a preview plans, in order, after checking that the release
// exists: the ones it cannot plan (failed, archived, not deployed, out of the sample) come skipped.
func (a *Activities) ListPreview(ctx context.Context, spec contract.PreviewSpec) ([]contract.PreviewInstance, error) {
	if a.Instances == nil {
		return nil, notAllowedf("this worker has no Temporal client to list instances")
	}
	if _, err := a.resolveRelease(ctx, spec.Stack, spec.To); err != nil {
		return nil, notAllowedf("--to %s: %s", spec.To, errorText(err))
	}
	listed, err := a.Instances.List(ctx, spec.Stack, spec.Tenant)
	if err != nil {
		return nil, err
	}
	return previewOutcomes(listed, spec.Sample), nil
}

// ListPreviewPage lists the next instances a preview plans: one page of the visibility store
// (checking that the release exists with the first), or for a sample the whole sample, as it
// needs every tenant of the scope. Skipped ones beyond contract.MaxPreviewNamed are counted.
func (a *Activities) ListPreviewPage(ctx context.Context, in contract.PreviewPageInput) (contract.PreviewPage, error) {
	if a.Instances == nil {
		return contract.PreviewPage{}, notAllowedf("this worker has no Temporal client to list instances")
	}
	spec := in.Spec
	if in.Page == nil {
		if _, err := a.resolveRelease(ctx, spec.Stack, spec.To); err != nil {
			return contract.PreviewPage{}, notAllowedf("--to %s: %s", spec.To, errorText(err))
		}
	}
	var page contract.PreviewPage
	var listed []contract.ListedInstance
	var err error
	if spec.Sample > 0 {
		listed, err = a.Instances.List(ctx, spec.Stack, spec.Tenant)
	} else {
		listed, page.Next, err = a.Instances.ListPage(ctx, spec.Stack, spec.Tenant, in.Size, in.Page)
	}
	if err != nil {
		return contract.PreviewPage{}, err
	}
	for _, p := range previewOutcomes(listed, spec.Sample) {
		switch {
		case p.Outcome == "":
			page.Pending = append(page.Pending, p.Ref)
		case len(page.Skipped) < contract.MaxPreviewNamed:
			page.Skipped = append(page.Skipped, p)
		default:
			page.SkippedMore++
		}
	}
	return page, nil
}

// previewOutcomes is listed by name, each to plan (no outcome) or skipped: not deployed, or out of the sample.
func previewOutcomes(listed []contract.ListedInstance, n int) []contract.PreviewInstance {
	sortForRollout(listed, contract.OrderName)
	out := make([]contract.PreviewInstance, 0, len(listed))
	var candidates []int
	for _, li := range listed {
		pi := contract.PreviewInstance{Ref: li.Ref}
		switch st := lifecycle.State(li.State); {
		case st == lifecycle.Deployed || st.Busy():
			candidates = append(candidates, len(out)) // a busy one is reported busy when its turn comes
		default:
			pi.Outcome, pi.Message = contract.PreviewSkipped, fmt.Sprintf("not deployed (%s)", st)
		}
		out = append(out, pi)
	}
	in := sample(out, candidates, n)
	for _, i := range candidates {
		if !in[i] {
			out[i].Outcome, out[i].Message = contract.PreviewSkipped, "not in the sample"
		}
	}
	return out
}

// sample picks n of the candidates, one tenant after another, so a sample sees every tenant it can.
func sample(all []contract.PreviewInstance, candidates []int, n int) map[int]bool {
	in := map[int]bool{}
	if n <= 0 || n >= len(candidates) {
		for _, i := range candidates {
			in[i] = true
		}
		return in
	}
	var tenants []string
	byTenant := map[string][]int{}
	for _, i := range candidates {
		t := all[i].Ref.Tenant
		if _, ok := byTenant[t]; !ok {
			tenants = append(tenants, t)
		}
		byTenant[t] = append(byTenant[t], i)
	}
	for round := 0; len(in) < n; round++ {
		for _, t := range tenants {
			if round < len(byTenant[t]) && len(in) < n {
				in[byTenant[t][round]] = true
			}
		}
	}
	return in
}

// stackLine is the instance file's top-level stack: line and its value.
var stackLine = regexp.MustCompile(`(?m)^stack:[ \t]*["']?([^"'\s#]+)["']?`)

// repin is the instance file with its stack: line naming the release; the rest, comments
// included, stays as the tenant wrote it.
func repin(file []byte, stack, release string) ([]byte, string, error) {
	m := stackLine.FindSubmatchIndex(file)
	if m == nil {
		return nil, "", fmt.Errorf("its instance file has no stack: line")
	}
	name, from, err := config.ParseStackRef(string(file[m[2]:m[3]]))
	if err != nil {
		return nil, "", err
	}
	if name != stack {
		return nil, "", fmt.Errorf("its config on main is of stack %s now", name)
	}
	out := slices.Concat(file[:m[0]], []byte("stack: "+stack+"@"+release), file[m[1]:])
	return out, from, nil
}

// PreviewInstance has one instance plan its move to the release, as `slipway plan -f` with the
// stack: line re-pinned would: the instance runs the plan as an operation, so it holds the state
// lock for the plan only, and a busy instance refuses at once (reported busy, never waited for).
func (a *Activities) PreviewInstance(ctx context.Context, in contract.PreviewInstanceInput) (contract.PreviewInstance, error) {
	out := contract.PreviewInstance{Ref: in.Ref}
	if a.Instances == nil {
		return out, notAllowedf("this worker has no Temporal client to reach instances")
	}
	head, err := a.Forge.Head(ctx)
	if err != nil {
		return out, classify(err)
	}
	files, err := a.Forge.ReadDir(ctx, head, in.Ref.Dir())
	if err != nil {
		return out, classify(err)
	}
	file, ok := files[instanceFile]
	if !ok {
		out.Outcome, out.Message = contract.PreviewSkipped, "no config on main"
		return out, nil
	}
	next, from, err := repin(file, in.Spec.Stack, in.Spec.To)
	out.From = from
	switch {
	case err != nil:
		out.Outcome, out.Message = contract.PreviewSkipped, err.Error()
		return out, nil
	case from == in.Spec.To:
		out.Outcome, out.Message = contract.PreviewSkipped, "runs "+from+" already"
		return out, nil
	}
	// The release's files, checked against the hash recorded at its cut, as every render reads them.
	stack, _, err := a.instanceStack(ctx, "", &config.Instance{Stack: in.Spec.Stack + "@" + in.Spec.To})
	if err != nil {
		return out, err
	}
	if in.Spec.Requester != nil {
		ctx = identity.With(ctx, *in.Spec.Requester) // planned for the preview's starter: the policy decides on them
	}
	var res contract.OperationResult
	err = withHeartbeat(ctx, "preview plan of "+in.Ref.String(), func(ctx context.Context) error {
		res, err = a.Instances.PlanConfig(ctx, in.Ref, string(next), in.Preview, in.Preview+"/"+in.Ref.String())
		return err
	})
	var refused *RefusedError
	switch {
	case errors.As(err, &refused) && refused.Busy:
		out.Outcome, out.Message = contract.PreviewBusy, refused.Error()
		return out, nil
	case errors.As(err, &refused):
		out.Outcome, out.Message = contract.PreviewFailed, refused.Error()
		return out, nil
	case err != nil:
		return out, err
	case res.Result == contract.ResultFailed || res.Plan == nil:
		out.Outcome, out.Message = contract.PreviewFailed, "the plan failed"
		if res.Failure != nil {
			out.Message = fmt.Sprintf("the plan failed at %s: %s", res.Failure.Step, res.Failure.Error)
		}
		return out, nil
	}
	var stateful []string
	if stack.Schema != nil {
		stateful = stack.Schema.Stateful
	}
	fp := planprint.Of(*res.Plan, stateful)
	// The values stay out of the preview's history: the fingerprint names the changed attributes.
	plan := *res.Plan
	plan.Resources = slices.Clone(plan.Resources)
	for i := range plan.Resources {
		plan.Resources[i].Attributes = nil
	}
	out.Outcome, out.Fingerprint, out.Plan, out.Diff = contract.PreviewPlanned, &fp, &plan, res.Diff
	if len(out.Diff) > maxPreviewDiff {
		out.Diff = out.Diff[:maxPreviewDiff] + fmt.Sprintf("\n… (%d more bytes)\n", len(res.Diff)-maxPreviewDiff)
	}
	return out, nil
}
