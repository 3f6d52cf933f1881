package workflows

import (
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// StackPreviewWorkflow plans every instance of a stack in scope on a new release, a few at a
// time, and groups them by plan fingerprint. Each instance plans as an operation of its own, so a
// plan never overlaps one (a busy instance is reported busy, not waited for). It changes nothing;
// its result, the groups and every instance's plan, is kept with its history.
func StackPreviewWorkflow(ctx workflow.Context, spec contract.PreviewSpec) (contract.PreviewResult, error) {
	// The plans run for whoever started it, never for a requester its input names.
	spec.Requester = nil
	if a, ok := attest.Verified(ctx); ok {
		spec.Requester = onBehalfOf(&a)
	}
	res := contract.PreviewResult{Spec: spec, StartedAt: workflow.Now(ctx)}
	err := workflow.SetQueryHandler(ctx, contract.QueryPreview, func() (contract.PreviewResult, error) {
		out := res
		out.Groups = groupPreview(res.Instances)
		return out, nil
	})
	if err != nil {
		return res, err
	}
	if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActListPreview, spec).Get(ctx, &res.Instances); err != nil {
		return res, err
	}
	limit := spec.Concurrency
	if limit <= 0 {
		limit = defaultDriftConcurrency
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	inFlight := 0
	for i := range res.Instances {
		if res.Instances[i].Outcome != "" {
			continue // skipped when listed
		}
		res.Total++
		if err := workflow.Await(ctx, func() bool { return inFlight < limit }); err != nil {
			return res, err
		}
		inFlight++
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() { inFlight-- }()
			ref := res.Instances[i].Ref
			in := contract.PreviewInstanceInput{Spec: spec, Ref: ref, Preview: id}
			if err := workflow.ExecuteActivity(driftCtx(ctx), contract.ActPreviewInstance, in).Get(ctx, &res.Instances[i]); err != nil {
				res.Instances[i] = contract.PreviewInstance{Ref: ref, Outcome: contract.PreviewFailed, Message: errorMessage(err)}
			}
			if res.Instances[i].Outcome == contract.PreviewPlanned {
				res.Planned++
			}
		})
	}
	if err := workflow.Await(ctx, func() bool { return inFlight == 0 }); err != nil {
		return res, err
	}
	res.Done, res.EndedAt, res.Groups = true, workflow.Now(ctx), groupPreview(res.Instances)
	// The result keeps each group's first diff only, so a fleet's preview stays one bounded payload.
	seen := map[string]bool{}
	for i := range res.Instances {
		if fp := res.Instances[i].Fingerprint; fp != nil {
			if seen[fp.Hash] {
				res.Instances[i].Diff = ""
			}
			seen[fp.Hash] = true
		}
	}
	return res, nil
}

// groupPreview groups the planned instances by fingerprint, the largest group first (then by hash).
func groupPreview(all []contract.PreviewInstance) []contract.PreviewGroup {
	var groups []contract.PreviewGroup
	for _, p := range all {
		if p.Fingerprint == nil {
			continue
		}
		i := slices.IndexFunc(groups, func(g contract.PreviewGroup) bool { return g.Hash == p.Fingerprint.Hash })
		if i < 0 {
			groups = append(groups, contract.PreviewGroup{PlanFingerprint: *p.Fingerprint})
			i = len(groups) - 1
		}
		groups[i].Instances = append(groups[i].Instances, p.Ref)
	}
	slices.SortStableFunc(groups, func(a, b contract.PreviewGroup) int {
		if len(a.Instances) != len(b.Instances) {
			return len(b.Instances) - len(a.Instances)
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	return groups
}
