package workflows

import (
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// previewBatch is how many instances one run of a preview plans before it continues as new
// (about 5 history events and one bounded plan each): a 10,000-instance preview stays well under
// the server's history limits. A var so a test can make it small.
var previewBatch = 1000

// StackPreviewWorkflow plans every instance of a stack in scope on a new release, a few at a
// time, and groups them by plan fingerprint. Each instance plans as an operation of its own, so a
// plan never overlaps one (a busy instance is reported busy, not waited for). It changes nothing.
// Each run lists one page of previewBatch instances and continues as new with the next page's
// token (a sample is listed whole and carried), keeping only the groups and a bounded record.
func StackPreviewWorkflow(ctx workflow.Context, spec contract.PreviewSpec) (contract.PreviewResult, error) {
	continues := workflow.GetVersion(ctx, changePreviewContinue, workflow.DefaultVersion, 1) >= 1
	carry := spec.Carry
	spec.Carry = nil
	if workflow.GetInfo(ctx).ContinuedExecutionRunID == "" {
		carry = nil // only its own previous run hands it progress
	}
	var pending []contract.Ref
	var paged bool
	var page []byte
	res := contract.PreviewResult{Spec: spec, StartedAt: workflow.Now(ctx)}
	if carry != nil {
		res, pending, paged, page = carry.Result, carry.Pending, carry.Paged, carry.Page
	} else {
		// The plans run for whoever started it, never for a requester its input names.
		res.Spec.Requester = nil
		if a, ok := attest.Verified(ctx); ok {
			res.Spec.Requester = onBehalfOf(&a)
		}
		paged = workflow.GetVersion(ctx, changePreviewPages, workflow.DefaultVersion, 1) >= 1
	}
	spec = res.Spec
	err := workflow.SetQueryHandler(ctx, contract.QueryPreview, func() (contract.PreviewResult, error) {
		out := res
		out.Groups = sortGroups(res.Groups)
		return out, nil
	})
	if err != nil {
		return res, err
	}
	switch {
	case paged && len(pending) == 0 && (carry == nil || len(page) > 0):
		var pg contract.PreviewPage
		in := contract.PreviewPageInput{Spec: spec, Size: previewBatch, Page: page}
		if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActListPreviewPage, in).Get(ctx, &pg); err != nil {
			return res, err
		}
		for _, p := range pg.Skipped {
			notPlanned(&res, p)
		}
		if pg.SkippedMore > 0 {
			res.NotPlanned[contract.PreviewSkipped] += pg.SkippedMore
		}
		pending, page = pg.Pending, pg.Next
		res.Total += len(pending)
		res.Listing = len(page) > 0
	case carry == nil: // a run from before pages lists the whole scope at once
		var listed []contract.PreviewInstance
		if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActListPreview, spec).Get(ctx, &listed); err != nil {
			return res, err
		}
		for _, p := range listed {
			if p.Outcome != "" {
				notPlanned(&res, p) // skipped when listed
				continue
			}
			pending = append(pending, p.Ref)
		}
		res.Total = len(pending)
	}
	limit := spec.Concurrency
	if limit <= 0 {
		limit = defaultDriftConcurrency
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	inFlight := 0
	for i, ref := range pending {
		if err := workflow.Await(ctx, func() bool { return inFlight < limit }); err != nil {
			return res, err
		}
		if continues && i > 0 && (i >= previewBatch || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			if err := workflow.Await(ctx, func() bool { return inFlight == 0 }); err != nil {
				return res, err
			}
			spec.Carry = &contract.PreviewCarry{Result: res, Pending: pending[i:], Paged: paged, Page: page}
			return contract.PreviewResult{}, workflow.NewContinueAsNewError(ctx, contract.StackPreviewWorkflowName, spec)
		}
		inFlight++
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() { inFlight-- }()
			var p contract.PreviewInstance
			in := contract.PreviewInstanceInput{Spec: spec, Ref: ref, Preview: id}
			if err := workflow.ExecuteActivity(driftCtx(ctx), contract.ActPreviewInstance, in).Get(ctx, &p); err != nil {
				p = contract.PreviewInstance{Ref: ref, Outcome: contract.PreviewFailed, Message: errorMessage(err)}
			}
			addPreview(&res, p)
		})
	}
	if err := workflow.Await(ctx, func() bool { return inFlight == 0 }); err != nil {
		return res, err
	}
	if len(page) > 0 {
		spec.Carry = &contract.PreviewCarry{Result: res, Paged: true, Page: page}
		return contract.PreviewResult{}, workflow.NewContinueAsNewError(ctx, contract.StackPreviewWorkflowName, spec)
	}
	res.Done, res.EndedAt, res.Groups = true, workflow.Now(ctx), sortGroups(res.Groups)
	return res, nil
}

// addPreview folds one instance's outcome into the record: a planned one counts in its
// fingerprint's group (named there if among the first PreviewSample by name, and kept with its
// plan and diff if the group's first), or in Ungrouped once there are MaxPreviewGroups; any
// other is recorded as not planned.
func addPreview(res *contract.PreviewResult, p contract.PreviewInstance) {
	if p.Outcome != contract.PreviewPlanned || p.Fingerprint == nil {
		notPlanned(res, p)
		return
	}
	res.Planned++
	i := slices.IndexFunc(res.Groups, func(g contract.PreviewGroup) bool { return g.Hash == p.Fingerprint.Hash })
	if i < 0 && len(res.Groups) >= contract.MaxPreviewGroups {
		res.Ungrouped++
		return
	}
	if i < 0 {
		res.Groups = append(res.Groups, contract.PreviewGroup{PlanFingerprint: *p.Fingerprint})
		res.Instances = append(res.Instances, p)
		i = len(res.Groups) - 1
	}
	g := &res.Groups[i]
	g.Count++
	g.Instances = append(g.Instances, p.Ref)
	slices.SortFunc(g.Instances, func(a, b contract.Ref) int { return strings.Compare(a.String(), b.String()) })
	g.Instances = slices.Clip(g.Instances[:min(len(g.Instances), contract.PreviewSample)])
}

// notPlanned counts an instance not planned by its outcome, and names it while the record names
// fewer than contract.MaxPreviewNamed (each group's first planned one is named besides).
func notPlanned(res *contract.PreviewResult, p contract.PreviewInstance) {
	if res.NotPlanned == nil {
		res.NotPlanned = map[string]int{}
	}
	res.NotPlanned[p.Outcome]++
	if len(res.Instances)-len(res.Groups) < contract.MaxPreviewNamed {
		res.Instances = append(res.Instances, p)
	}
}

// sortGroups returns the groups largest first (then by hash).
func sortGroups(groups []contract.PreviewGroup) []contract.PreviewGroup {
	groups = slices.Clone(groups)
	slices.SortStableFunc(groups, func(a, b contract.PreviewGroup) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	return groups
}
