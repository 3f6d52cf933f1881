package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// updateRow runs update deploys (deploy -f with a changed config) on real git and terraform,
// with a worker in this process whose adapters are timed, and splits the wall time.
func (b *bench) updateRow(ctx context.Context) error {
	var git, tf, dep clock
	const tq = "bench-real"
	w, err := b.realWorker(tq, &git, &tf, &dep)
	if err != nil {
		return err
	}
	defer w.Stop()
	c := client.New(b.env.Client.Temporal, tq, "")
	ref := contract.Ref{Tenant: "real", Name: "web"}
	for _, s := range walk[:2] { // provision and deploy: terraform init and the first apply
		if _, err := submit(ctx, c, ref, s.op, s.config); err != nil {
			return err
		}
	}
	git.reset()
	tf.reset()
	dep.reset()
	if b.o.cpuProfile != "" { // this process runs the worker: where an update's orchestration spends its CPU
		f, err := os.Create(filepath.Join(b.o.cpuProfile, "cpu-bench-update.pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var wall time.Duration
	for i := 0; i < b.o.runs; i++ {
		d, err := submit(ctx, c, ref, lifecycle.OpDeploy, instanceConfig(i+2))
		if err != nil {
			return err
		}
		wall += d
	}
	if b.o.cpuProfile != "" { // the last update's events, to read where its orchestration goes
		f, err := os.Create(filepath.Join(b.o.cpuProfile, "update-timeline.txt"))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := timeline(ctx, b.env.Client.Temporal, f, contract.InstanceWorkflowID(ref), spansOf(&git, &tf, &dep)); err != nil {
			return err
		}
	}
	n := float64(b.o.runs)
	per := func(c *clock) float64 { return ms(c.total()) / n }
	total := ms(wall) / n
	inside := per(&tf) + per(&git) + per(&dep)
	orch := total - inside
	b.rep.add(row{Section: "update deploy (real git + terraform)", Name: "deploy -f, changed config",
		Figures: map[string]float64{"msPerUpdate": total, "terraformMs": per(&tf), "gitMs": per(&git),
			"deployerMs": per(&dep), "orchestrationMs": orch, "orchestrationShare": orch / total},
		Text: fmt.Sprintf("%6.0f ms/update: terraform %.0f ms, git %.0f ms, deployer %.0f ms, orchestration %.0f ms (%.0f%%; %.0f%% inside terraform, git and the deployer)",
			total, per(&tf), per(&git), per(&dep), orch, 100*orch/total, 100*inside/total),
		Note: fmt.Sprintf("%d updates; deployer none (no cluster in the bench); orchestration counts rendering, secrets and Temporal round trips", b.o.runs)})
	return nil
}

// realWorker runs slipway's workflows in this process on queue over real git and terraform (the
// env's activities), the time inside each adapter summed on its clock.
func (b *bench) realWorker(queue string, git, tf, dep *clock) (worker.Worker, error) {
	acts := *b.env.Activities
	acts.Forge = timedForge{acts.Forge, git}
	acts.Terraform = timedTerraform{acts.Terraform, tf}
	acts.Deployer = timedDeployer{acts.Deployer, dep}
	workerapp.Attach(&acts, b.env.Client.Temporal, queue)
	w := worker.New(b.env.Client.Temporal, queue, worker.Options{Interceptors: b.env.Interceptors})
	if err := workerapp.Register(w, &acts); err != nil {
		return nil, err
	}
	if err := w.Start(); err != nil {
		return nil, err
	}
	return w, nil
}
