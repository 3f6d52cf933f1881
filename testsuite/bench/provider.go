package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// providerApply is how long the provider row's apply waits in time_sleep.
const providerApply = 30 * time.Second

// providerRow deploys examples/stacks/timed on the real hashicorp/time, installed from a
// filesystem mirror by a worker with an empty disk, with an apply that takes providerApply,
// and splits the deploy's wall time: slipway's share is what is not terraform, git or the deployer.
func (b *bench) providerRow(ctx context.Context) error {
	mirror, err := tfmirror.Write(filepath.Join(b.dir, "provider-mirror"), tfmirror.Time())
	if err != nil {
		return err
	}
	opts := []terraform.Option{terraform.WithProviderMirror(mirror.Dir)}
	if bin := os.Getenv("SLIPWAY_TERRAFORM"); bin != "" {
		opts = append(opts, terraform.WithBinary(bin))
	}
	runner, err := terraform.New(filepath.Join(b.dir, "provider-worker"), opts...)
	if err != nil {
		return err
	}
	var git, tf, dep, initC, planC, applyC clock
	acts := *b.env.Activities
	acts.Forge = timedForge{acts.Forge, &git}
	acts.Terraform = timedTerraform{phasedTerraform{runner, &initC, &planC, &applyC}, &tf}
	acts.Deployer = timedDeployer{acts.Deployer, &dep}
	if err := addStack(ctx, acts.Forge, "timed"); err != nil {
		return err
	}
	const tq = "bench-provider"
	workerapp.Attach(&acts, b.env.Client.Temporal, tq)
	w := worker.New(b.env.Client.Temporal, tq, worker.Options{Interceptors: b.env.Interceptors})
	if err := workerapp.Register(w, &acts); err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	c := client.New(b.env.Client.Temporal, tq, "")
	ref := contract.Ref{Tenant: "real", Name: "timed"}
	if _, err := submit(ctx, c, ref, lifecycle.OpProvision, fmt.Sprintf("stack: timed\nparameters:\n  sleep: %s\n", providerApply)); err != nil {
		return err
	}
	for _, c := range []*clock{&git, &tf, &dep, &initC, &planC, &applyC} {
		c.reset()
	}
	wall, err := submit(ctx, c, ref, lifecycle.OpDeploy, "")
	if err != nil {
		return err
	}
	if applyC.total() < providerApply {
		return fmt.Errorf("the apply took %v, less than its time_sleep of %v", applyC.total(), providerApply)
	}
	total, inside := ms(wall), ms(tf.total()+git.total()+dep.total())
	orch := total - inside
	coldInit := ms(initC.total())
	b.rep.add(row{Section: "real provider (hashicorp/time from a mirror)", Name: fmt.Sprintf("first deploy, %v apply", providerApply),
		Figures: map[string]float64{"msPerDeploy": total, "terraformMs": ms(tf.total()), "initColdMs": coldInit, "planMs": ms(planC.total()),
			"applyMs": ms(applyC.total()), "gitMs": ms(git.total()), "deployerMs": ms(dep.total()), "orchestrationMs": orch, "orchestrationShare": orch / total},
		Text: fmt.Sprintf("%6.0f ms: init (cold) %.0f ms, plan %.0f ms, apply %.0f ms, git %.0f ms, deployer %.0f ms; slipway's share %.0f ms (%.2f%%)",
			total, coldInit, ms(planC.total()), ms(applyC.total()), ms(git.total()), ms(dep.total()), orch, 100*orch/total),
		Note: "a worker with an empty disk; slipway's share is the wall time outside terraform, git and the deployer (target < 1%)"})
	initC.reset()
	if _, err := submit(ctx, c, ref, lifecycle.OpPlan, ""); err != nil {
		return err
	}
	b.rep.add(row{Section: "real provider (hashicorp/time from a mirror)", Name: "plan, warm worker",
		Figures: map[string]float64{"initWarmMs": ms(initC.total())},
		Text:    fmt.Sprintf("init (warm, plugin cache and lock file in place) %.0f ms", ms(initC.total()))})
	return nil
}

// addStack merges an example stack into the GitOps repo, as its platform team would.
func addStack(ctx context.Context, f forge.Forge, name string) error {
	files, err := examples.StackFiles(name)
	if err != nil {
		return err
	}
	mr, err := f.Open(ctx, forge.Change{Branch: "bench/stack-" + name, Title: "add the " + name + " stack", Dir: "stacks/" + name, Files: files})
	if err != nil {
		return err
	}
	_, err = f.Merge(ctx, mr)
	return err
}

// phasedTerraform times init, plan and apply apart.
type phasedTerraform struct {
	activities.Terraform
	init, plan, apply *clock
}

func (t phasedTerraform) Init(ctx context.Context, ws terraform.Workspace) error {
	defer t.init.since(time.Now())
	return t.Terraform.Init(ctx, ws)
}
func (t phasedTerraform) Plan(ctx context.Context, ws terraform.Workspace, name string, destroy bool) (*terraform.Plan, error) {
	defer t.plan.since(time.Now())
	return t.Terraform.Plan(ctx, ws, name, destroy)
}
func (t phasedTerraform) Apply(ctx context.Context, ws terraform.Workspace, p *terraform.Plan) (bool, error) {
	defer t.apply.since(time.Now())
	return t.Terraform.Apply(ctx, ws, p)
}
