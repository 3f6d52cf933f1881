package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// recordLegacyNames gives an instance provisioned before names were recorded the names it got
// then, so they are never recomputed, and claims them like a provision claims new ones.
func (e *entity) recordLegacyNames(ctx workflow.Context) {
	if !recordsNames(ctx) || !e.s.Started || e.s.State == lifecycle.NoConfiguration {
		return
	}
	if e.s.Ref.Names == nil {
		legacy := names.Legacy(e.s.Ref.Tenant, e.s.Ref.Name)
		e.s.Ref.Names = &legacy
	}
	e.claimRecordedNames(ctx, true)
}

// claimRecordedNames claims the names the instance recorded without claiming them (an instance
// from before names were claimed) at its next request; histories from before version 2 also
// claimed them at the start of the run.
func (e *entity) claimRecordedNames(ctx workflow.Context, runStart bool) {
	if e.s.NamesClaimed || e.s.Ref.Names == nil {
		return
	}
	if claims, atStart := claimsRecordedNames(ctx); !claims || (runStart && !atStart) {
		return
	}
	// Busy while claiming, as while releasing: a request waits for the names to be settled.
	busy := e.busy
	e.busy = true
	defer func() { e.busy = busy }()
	in := contract.NamesInput{Ref: e.s.Ref, Names: *e.s.Ref.Names, Legacy: true}
	if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActClaimNames, in).Get(ctx, nil); err != nil {
		// Held by another instance already (the old rule gave a-b/c and a/b-c the same names):
		// nothing to take back; the next run or request tries again.
		workflow.GetLogger(ctx).Error("recorded names not claimed", "instance", e.s.Ref.String(), "error", err)
		return
	}
	e.s.NamesClaimed = true
}

// claimNames derives the names of an instance being provisioned and claims them; a name
// another instance holds refuses the provision (NotAllowed, naming that instance) before the
// state moves.
func (e *entity) claimNames(ctx workflow.Context) error {
	if e.s.Ref.Names != nil || !recordsNames(ctx) {
		return nil
	}
	n := names.Derive(e.s.Ref.Tenant, e.s.Ref.Name)
	in := contract.NamesInput{Ref: e.s.Ref, Names: n}
	// A claim the owner holds already is success, so it runs as a local activity (rides): one marker, no task.
	if err := quick(ctx, rides(ctx), contract.ActClaimNames, in).Get(ctx, nil); err != nil {
		return err
	}
	e.s.Ref.Names = &n
	e.s.NamesClaimed = true
	return nil
}

// releaseNames gives up the names of an instance that holds nothing any more (deprovisioned,
// or back to NoConfiguration), so a later provision derives and claims them afresh. A release
// that fails leaves them held by this ref, which no other ref derives: it is logged, not fatal.
func (e *entity) releaseNames(ctx workflow.Context) {
	if s := e.s.State; s != lifecycle.Deprovisioned && s != lifecycle.NoConfiguration {
		return
	}
	n := e.s.Ref.Names
	if n == nil || !recordsNames(ctx) {
		return
	}
	// Busy while releasing: a provision admitted now must not see the names being released.
	busy := e.busy
	e.busy = true
	defer func() { e.busy = busy }()
	in := contract.NamesInput{Ref: e.s.Ref, Names: *n}
	if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActReleaseNames, in).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Error("names not released; they stay held by this instance",
			"instance", e.s.Ref.String(), "error", err)
	}
	e.s.Ref.Names = nil
	e.s.NamesClaimed = false
}
