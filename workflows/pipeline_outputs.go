package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// renderOutputs renders the manifests that use .Outputs with the outputs of this deploy's apply,
// at the revision it applied, and merges them; the app then deploys that merge, so git holds
// what ArgoCD syncs. The merge is recorded like any of slipway's, so verify-render accepts it.
func (p *pipeline) renderOutputs() error {
	if !p.usesOutputs {
		return nil // no step at all: most stacks' deploys stay as they were
	}
	return p.run(contract.RenderOutputs, false, func(ctx workflow.Context) (string, error) {
		var out contract.RenderOutputsOutput
		in := contract.RenderOutputsInput{Ref: p.in.Ref, Operation: string(p.in.Operation), OpID: p.in.OpID, Revision: p.progress.Revision}
		if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActRenderOutputs, in).Get(ctx, &out); err != nil {
			return "", err
		}
		if out.MR == nil {
			return "nothing to render: the manifests hold these outputs already", nil
		}
		rec, err := p.recordRender(ctx, out.MR.HeadSHA, out.MR.MergeSHA)
		if err != nil {
			return "", err
		}
		p.progress.Revision = out.MR.MergeSHA
		return fmt.Sprintf("%d file(s) rendered with the outputs, merged as %s%s", len(out.Files), short(out.MR.MergeSHA), rec), nil
	})
}
