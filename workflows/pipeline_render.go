package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// recordRender records the hashes of the files slipway committed (commit) and merged (revision)
// into the instance's directory, for the merge step's detail. It is part of the merge step, so
// a merge whose files went unrecorded is not done: a retry merges again (a no-op) and records.
func (p *pipeline) recordRender(ctx workflow.Context, commit, revision string) (string, error) {
	if !p.verifies {
		return "", nil
	}
	if commit == "" {
		commit = revision // a forge that does not say the MR's head: the merge is the next best read
	}
	var rec contract.Render
	in := contract.RecordRenderInput{Ref: p.in.Ref, Commit: commit, Revision: revision}
	if err := quick(ctx, p.local, contract.ActRecordRender, in).Get(ctx, &rec); err != nil {
		return "", err
	}
	p.progress.Render = &rec
	return fmt.Sprintf("; %d rendered file(s) recorded", len(rec.Files)), nil
}

// render is the record the files are verified against: this operation's merge, else the instance's.
func (p *pipeline) render() *contract.Render {
	if p.progress.Render != nil {
		return p.progress.Render
	}
	return p.in.Render
}

// verifyRender checks, before terraform or a hook runs from them, that the instance's files at
// the pinned revision are exactly those slipway's last merge rendered. An instance from before
// renders were recorded has nothing to compare with: its next merge (deploy -f, a rollout) records one.
func (p *pipeline) verifyRender() error {
	if !p.verifies {
		return nil
	}
	return p.run(contract.VerifyRender, false, func(ctx workflow.Context) (string, error) {
		if acc := p.progress.AcceptedRender; acc != "" && (p.progress.Render == nil || p.progress.Render.Revision != acc) {
			// An operator reviewed the files at that revision and accepted them (resolve --accept-render).
			if _, err := p.recordRender(ctx, acc, acc); err != nil {
				return "", err
			}
		}
		rec := p.render()
		if rec == nil {
			return "not verified: nothing recorded yet (an instance from before renders were recorded); the next deploy -f records one", nil
		}
		in := contract.VerifyRenderInput{Ref: p.in.Ref, Revision: p.progress.Revision, Render: *rec}
		if err := quick(ctx, p.local, contract.ActVerifyRender, in).Get(ctx, nil); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d file(s) as rendered at merge %s", len(rec.Files), short(rec.Revision)), nil
	})
}

// renderLeftover names the files changed on main since slipway's merge, and who changed them.
func renderLeftover(ref contract.Ref, err error) (contract.Leftover, bool) {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != contract.ErrRenderChanged || !appErr.HasDetails() {
		return contract.Leftover{}, false
	}
	var c contract.RenderChange
	if appErr.Details(&c) != nil {
		return contract.Leftover{}, false
	}
	var shas []string
	for _, cm := range c.Commits {
		shas = append(shas, short(cm.SHA))
	}
	revert := "revert the commits on main that changed " + c.Dir + " (" + c.By() + ")"
	if len(shas) > 0 {
		revert = "revert " + strings.Join(shas, " ") + " on main (git revert)"
	}
	return contract.Leftover{Kind: contract.LeftoverRender, ID: strings.Join(c.Files(), ","), Detail: c.Message(), Diff: c.Diff,
		Cleanup: fmt.Sprintf("nothing ran from these files; %s so %s holds what slipway rendered, then slipway retry %s; "+
			"or, once you have reviewed the change, slipway resolve %s --accept-render --reason ... records the files at %s as rendered and resumes",
			revert, c.Dir, ref, ref, short(c.Revision))}, true
}

// admitAcceptRender accepts resolve --accept-render only for an operation that failed verifying its render.
func (e *entity) admitAcceptRender(d lifecycle.Decision, req contract.DecisionRequest) error {
	if d != lifecycle.DecisionResolve {
		return notAllowed("%s: acceptRender (--accept-render) goes with resolve, not %s", e.s.Ref, d)
	}
	if req.To != "" || req.ForceUnlock != "" || req.SkipHook {
		return notAllowed("%s: resolve --accept-render resumes the operation; it takes neither --to, --force-unlock nor --skip-hook", e.s.Ref)
	}
	op := e.s.Current
	if op.Failure == nil || op.Failure.Step != contract.VerifyRender || op.Progress.Revision == "" {
		step := "none"
		if op.Failure != nil {
			step = op.Failure.Step
		}
		return notAllowed("%s: --accept-render: the operation did not fail verifying its rendered files (it failed at step %s)", e.s.Ref, step)
	}
	return nil
}

// acceptedChange is the files and diff verify-render named, for the decision that accepts them.
func acceptedChange(f *contract.Failure) ([]string, string) {
	for _, l := range f.Leftovers {
		if l.Kind == contract.LeftoverRender {
			return strings.Split(l.ID, ","), l.Diff
		}
	}
	return nil, ""
}

// pipelineRender is the record a pipeline's merge made, from its result or its failure; nil if none.
func pipelineRender(res contract.PipelineResult, err error) *contract.Render {
	if err != nil {
		return pipelineFailure(err).Progress.Render
	}
	return res.Progress.Render
}
