package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

const (
	previewRealQueue  = "bench-preview-real"
	previewRealTenant = "preview-real"
	// previewRealAtOnce is how many instances of the real fleet provision at a time: each runs terraform.
	previewRealAtOnce = 5
	exampleTerraform  = "stacks/example/terraform" // in the GitOps repository
)

// previewRealRow times `slipway stack preview example --to 1.1.0` over -preview-real instances
// pinned to 1.0.0 on real git and terraform, with a worker in this process whose adapters are
// timed. 1.1.0 changes the terraform, so every instance plans a change, in two shapes.
func (b *bench) previewRealRow(ctx context.Context) error {
	n := b.o.previewReal
	var git, tf, dep clock
	w, err := b.realWorker(previewRealQueue, &git, &tf, &dep)
	if err != nil {
		return err
	}
	defer w.Stop()
	c := client.New(b.env.Client.Temporal, previewRealQueue, "")
	if err := cutReleases(ctx, c, b.changeExample); err != nil {
		return err
	}
	start := time.Now()
	if err := provisionPinned(ctx, c, previewRealTenant, n); err != nil {
		return err
	}
	note := fmt.Sprintf("the fleet on %s@%s was provisioned and deployed first, %d at a time: %.1f s; 1.1.0 adds an input to every app and a scaler where replicas is 2 (every other instance); worker CPU is the bench process's and its reaped children's (the worker, terraform, the client)",
		rolloutStack, releaseFrom, previewRealAtOnce, time.Since(start).Seconds())
	git.reset()
	tf.reset()
	p, err := b.timePreview(ctx, c, fmt.Sprintf("bench-real-%d", n), previewRealTenant, n, selfCPU)
	if err != nil {
		return err
	}
	perPlan := func(c *clock) float64 { return ms(c.total()) / float64(n) }
	return b.addPreview(fmt.Sprintf("stack preview (real git + terraform, %d instances)", n), "preview-real", note, p,
		map[string]float64{"terraformMsPerPlan": perPlan(&tf), "gitMsPerPlan": perPlan(&git)},
		fmt.Sprintf("terraform %.0f ms a plan, git %.0f ms (summed over concurrent plans); worker %.1f CPU-s", perPlan(&tf), perPlan(&git), p.cpu.Seconds()))
}

// changeExample commits release 1.1.0's terraform to main: every instance's app gains an input,
// and those with more than one replica a scaler, so the preview groups two shapes of plan.
func (b *bench) changeExample(ctx context.Context) error {
	fg := b.env.Activities.Forge
	files, err := fg.ReadDir(ctx, "", exampleTerraform)
	if err != nil {
		return err
	}
	if files["main.tf.tmpl"], err = exampleNext(files["main.tf.tmpl"]); err != nil {
		return err
	}
	mr, err := fg.Open(ctx, forge.Change{Branch: "bench/example-" + releaseTo, Title: "bench: example " + releaseTo, Dir: exampleTerraform, Files: files})
	if err != nil {
		return err
	}
	_, err = fg.Merge(ctx, mr)
	return err
}

// exampleNext is the example stack's main.tf.tmpl as release 1.1.0 has it.
func exampleNext(tmpl []byte) ([]byte, error) {
	const anchor = "    debug    = {{ .Params.debug }}\n"
	if !strings.Contains(string(tmpl), anchor) {
		return nil, fmt.Errorf("%s/main.tf.tmpl: no line %q to add an input after", exampleTerraform, strings.TrimSpace(anchor))
	}
	return []byte(strings.Replace(string(tmpl), anchor, anchor+"    tier     = \"standard\"\n", 1) + `
resource "terraform_data" "scaler" {
  count = {{ .Params.replicas }} > 1 ? 1 : 0
  input = {{ .Params.replicas }}
}
`), nil
}

// provisionPinned provisions and deploys n instances of tenant pinned to 1.0.0, a few at a time;
// every other one runs 2 replicas.
func provisionPinned(ctx context.Context, c *client.Client, tenant string, n int) error {
	sem := make(chan struct{}, previewRealAtOnce)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			ref := contract.Ref{Tenant: tenant, Name: fmt.Sprintf("web-%d", i)}
			if _, errs[i] = submit(ctx, c, ref, lifecycle.OpProvision, pinnedConfig(1+i%2)); errs[i] == nil {
				_, errs[i] = submit(ctx, c, ref, lifecycle.OpDeploy, "")
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("provision and deploy the fleet on %s@%s: %w", rolloutStack, releaseFrom, err)
		}
	}
	return nil
}

// selfCPU is the CPU time of this process and its reaped children: the real rows' worker, the
// terraform it ran, and the client.
func selfCPU() time.Duration {
	f := statFields(os.Getpid())
	if f == nil {
		return 0
	}
	return time.Duration(ticks(f, 11)+ticks(f, 12)+ticks(f, 13)+ticks(f, 14)) * time.Second / 100
}
