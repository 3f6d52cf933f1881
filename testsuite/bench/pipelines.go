package main

import (
	"context"
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/identity"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func instanceConfig(replicas int) string {
	return fmt.Sprintf("stack: example\nparameters:\n  greeting: hello\n  replicas: %d\n", replicas)
}

// lifecycleStep is one operation of the walk every pipeline row takes; "update" is a deploy
// with a changed config, and a step with an empty row is run but not reported.
type lifecycleStep struct {
	row    string
	op     lifecycle.Operation
	config string
}

var walk = []lifecycleStep{
	{"provision", lifecycle.OpProvision, instanceConfig(1)},
	{"deploy", lifecycle.OpDeploy, ""},
	{"update", lifecycle.OpDeploy, instanceConfig(2)},
	{"plan", lifecycle.OpPlan, ""},
	{"archive", lifecycle.OpArchive, ""},
	{"", lifecycle.OpDeploy, ""}, // back to Deployed, which destroy starts from
	{"destroy", lifecycle.OpDestroy, ""},
	{"deprovision", lifecycle.OpDeprovision, ""},
}

// submit runs one operation to its end and returns how long it took, from the request to the
// result, as a CLI with --wait sees it.
func submit(ctx context.Context, c *client.Client, ref contract.Ref, op lifecycle.Operation, config string) (time.Duration, error) {
	start := time.Now()
	// As a platform admin, as the demo does: its destroys wait for no approval.
	h, err := c.Submit(identity.With(ctx, devenv.LocalAdmin()), ref, op, contract.OperationRequest{ConfigYAML: config, Actor: "bench",
		Confirm: op == lifecycle.OpDeprovision}, "")
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, ref, err)
	}
	res, err := h.Get(ctx)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, ref, err)
	}
	if res.Result != contract.ResultSucceeded {
		return 0, fmt.Errorf("%s %s: %s in %s: %+v", op, ref, res.Result, res.State, res.Failure)
	}
	return time.Since(start), nil
}

// stepsDone counts the steps the instance's last operation ran (not skipped ones).
func stepsDone(ctx context.Context, c *client.Client, ref contract.Ref) (int, error) {
	st, err := c.Status(ctx, ref, contract.StatusRequest{Output: "all"})
	if err != nil {
		return 0, err
	}
	n := 0
	if st.Operation != nil {
		for _, s := range st.Operation.Steps {
			if s.Status == contract.StepDone {
				n++
			}
		}
	}
	return n, nil
}

// pipelineRows walks runs instances through the whole lifecycle, one operation at a time,
// over instant adapters, and reports each pipeline's ms per step against the floor.
func (b *bench) pipelineRows(ctx context.Context) error {
	floor, err := b.floorPerStep(ctx)
	if err != nil {
		return err
	}
	for _, t := range b.targets() {
		if err := b.pipelines(ctx, t, floor); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) pipelines(ctx context.Context, t target, floor float64) error {
	type total struct {
		wall  time.Duration
		steps int
	}
	totals := map[string]*total{}
	for i := 0; i < b.o.runs; i++ {
		ref := contract.Ref{Tenant: "pipelines" + t.suffix, Name: fmt.Sprintf("p%03d", i)}
		for _, s := range walk {
			d, err := submit(ctx, t.c, ref, s.op, s.config)
			if err != nil {
				return err
			}
			if s.row == "" {
				continue
			}
			n, err := stepsDone(ctx, t.c, ref)
			if err != nil {
				return err
			}
			if totals[s.row] == nil {
				totals[s.row] = &total{}
			}
			totals[s.row].wall += d
			totals[s.row].steps += n
		}
	}
	for _, s := range walk {
		tot := totals[s.row]
		if tot == nil || tot.steps == 0 {
			continue
		}
		perOp := ms(tot.wall) / float64(b.o.runs)
		perStep := ms(tot.wall) / float64(tot.steps)
		b.rep.add(row{Section: "pipelines (instant adapters)", Name: s.row + t.label,
			Figures: map[string]float64{"msPerOperation": perOp, "steps": float64(tot.steps) / float64(b.o.runs),
				"msPerStep": perStep, "ratioToFloor": perStep / floor},
			Text: fmt.Sprintf("%6.2f ms/step  %4.2fx floor  (%.0f ms for %d steps)", perStep, perStep/floor,
				perOp, tot.steps/b.o.runs)})
	}
	return nil
}
