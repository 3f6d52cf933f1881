package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ProvisionPipeline validates the config, renders it into the GitOps repo through
// one MR and merges it (Grove's create-instance pipeline).
func ProvisionPipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	run := []func() error{p.validate, func() error { return p.openMR(false) }, p.mergeMR}
	if in.Adopt != "" {
		// Grove's local create: the tenant pushed the config to main; record that commit, open no MR.
		run = []func() error{p.validate, p.adoptCommit}
	}
	for _, step := range run {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	if p.progress.Revision == "" && p.progress.MR != nil {
		p.progress.Revision = p.progress.MR.BaseSHA // no changes: main already held this config
	}
	return p.result(), nil
}

// commitRE is a commit ID as forges name it.
var commitRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// adoptCommit records the instance file at the pushed commit as its render, and nothing else
// there (a tenant's terraform is not slipway's rendering): a plain deploy verifies main against
// it, then renders the config against the stack through its own MR before anything runs.
func (p *pipeline) adoptCommit() error {
	return p.run(contract.AdoptCommit, true, func(ctx workflow.Context) (string, error) {
		var rec contract.Render
		in := contract.RecordRenderInput{Ref: p.in.Ref, Commit: p.in.Adopt, Revision: p.in.Adopt, Adopt: true}
		if err := quick(ctx, p.local, contract.ActRecordRender, in).Get(ctx, &rec); err != nil {
			return "", err
		}
		sum := sha256.Sum256([]byte(p.in.ConfigYAML))
		if rec.Files["instance.yaml"] != hex.EncodeToString(sum[:]) {
			// What was validated must be what the commit holds, or the record would vouch for another file.
			return "", notAllowed("%s: commit %s does not hold the validated config as instances/%s/%s/instance.yaml",
				p.in.Ref, short(p.in.Adopt), p.in.Ref.Tenant, p.in.Ref.Name)
		}
		p.progress.Render, p.progress.Revision = &rec, p.in.Adopt
		return "config pushed to main at " + short(p.in.Adopt) + " recorded; no MR", nil
	})
}
