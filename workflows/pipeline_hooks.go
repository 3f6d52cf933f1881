package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Hook names as stacks declare them.
const (
	HookDrain      = "drain"
	HookPostDeploy = "post-deploy"
)

// hookSteps pairs each hook with the step that runs it.
var hookSteps = []struct{ hook, step string }{{HookDrain, contract.DrainHook}, {HookPostDeploy, contract.PostDeployHook}}

// hookStep is the step that runs hook; hookOf the hook a step runs ("" for other steps).
func hookStep(hook string) string {
	for _, h := range hookSteps {
		if h.hook == hook {
			return h.step
		}
	}
	return ""
}

func hookOf(step string) string {
	for _, h := range hookSteps {
		if h.step == step {
			return h.hook
		}
	}
	return ""
}

// hookState is a lifecycle state as a hook is told it (BOSH: the job running, stopped or
// deleted; the persistent disk available or deleted).
func hookState(st lifecycle.State, op lifecycle.Operation, reason string) contract.HookState {
	hs := contract.HookState{State: string(st), App: "deleted", Data: "deleted", Operation: string(op), Reason: reason,
		Deployment: contract.HookDeploymentDeleted, Instance: contract.HookInstanceDeleted, Disk: contract.HookDiskDetached}
	switch st {
	case lifecycle.Deployed:
		hs.App, hs.Data = "running", "available"
		hs.Deployment, hs.Instance, hs.Disk = contract.HookDeploymentUpdated, contract.HookInstanceRunning, contract.HookDiskAttached
	case lifecycle.Archived:
		// The data stays, with no app attached to it.
		hs.App, hs.Data = "stopped", "available"
		hs.Deployment, hs.Instance = contract.HookDeploymentUpdated, contract.HookInstanceStopped
	}
	return hs
}

// replaceState is where a deploy that replaces or deletes takes the instance: Deployed, its
// instance recreated when anything is replaced (or recreate asked for it), its disk unavailable
// while a stateful resource is replaced and detached when one is deleted.
func replaceState(reason string, plan contract.PlanSummary, stateful, workloads []string, recreate bool) contract.HookState {
	hs := hookState(lifecycle.Deployed, lifecycle.OpDeploy, reason)
	if recreate || len(workloads) > 0 {
		hs.Instance = contract.HookInstanceRecreated
	}
	for _, rc := range plan.Resources {
		if !slices.Contains(rc.Actions, "delete") {
			continue
		}
		hs.Replaced = append(hs.Replaced, rc.Address)
		replaces := rc.Replaces()
		if replaces {
			hs.Instance = contract.HookInstanceRecreated
		}
		switch {
		case !rc.IsStateful(stateful):
		case replaces:
			hs.Disk = contract.HookDiskUnavailable
		case hs.Disk != contract.HookDiskUnavailable:
			hs.Disk = contract.HookDiskDetached
		}
	}
	hs.Replaced = append(hs.Replaced, workloads...)
	return hs
}

// drainBeforeApply runs the drain hook before a deploy's apply when its plan replaces or deletes
// resources, its manifests recreate or delete a workload, or it is a recreate; otherwise nothing.
func (p *pipeline) drainBeforeApply(plan *contract.PlanOutput) error {
	if !p.drainsReplace || !p.controls {
		return nil
	}
	if _, ok := p.progress.Controls.Hook(HookDrain); !ok {
		return nil // nothing to tell: no need to compare the manifests either
	}
	// Workloads are recreated only where they run: an archived instance has none.
	if from, to := p.in.DeployedRevision, p.progress.Revision; p.in.From == lifecycle.Deployed && from != "" && from != to {
		in := contract.WorkloadsInput{Ref: p.in.Ref, From: from, To: to}
		if err := quick(p.ctx, p.local, contract.ActWorkloadChanges, in).Get(p.ctx, &p.workloads); err != nil {
			return &stepError{step: contract.DrainHook, err: err}
		}
	}
	var summary contract.PlanSummary
	if plan != nil {
		summary = plan.Summary
	}
	if len(summary.Removed()) == 0 && len(p.workloads) == 0 && !p.in.Recreate {
		return nil
	}
	var stateful []string
	if p.progress.Controls != nil {
		stateful = p.progress.Controls.Stateful
	}
	return p.hookTo(HookDrain, replaceState(p.hookReason(), summary, stateful, p.workloads, p.in.Recreate))
}

// hook runs the stack's hook name, when it declares one, told where the instance is and where
// the operation takes it. It is durable: once it has run, a retry goes on past it.
func (p *pipeline) hook(name string) error {
	return p.hookTo(name, hookState(p.in.Operation.Done(p.in.From), p.in.Operation, p.hookReason()))
}

func (p *pipeline) hookReason() string {
	return fmt.Sprintf("%s of %s (operation %s)", p.in.Operation, p.in.Ref, p.in.OpID)
}

// hookTo runs hook name told that the operation takes the instance to next.
func (p *pipeline) hookTo(name string, next contract.HookState) error {
	if !p.controls {
		return nil
	}
	info, ok := p.progress.Controls.Hook(name)
	if !ok {
		return nil
	}
	return p.run(hookStep(name), true, func(ctx workflow.Context) (string, error) {
		// Both hooks are told the state the operation started from and the one it goes to.
		in := contract.HookInput{Ref: p.in.Ref, OpID: p.in.OpID, Attempt: p.in.Attempt, Hook: name, Revision: p.progress.Revision,
			Current:  hookState(p.in.From, p.in.Operation, next.Reason),
			Next:     next,
			Deadline: workflow.Now(ctx).Add(info.Deadline)}
		var out contract.HookOutput
		err := workflow.ExecuteActivity(hookCtx(ctx, info.Deadline), contract.ActRunHook, in).Get(ctx, &out)
		if err != nil {
			var appErr *temporal.ApplicationError
			if errors.As(err, &appErr) && appErr.HasDetails() {
				_ = appErr.Details(&out)
			}
			p.output = out.Output
			return "", err
		}
		p.output = out.Output
		return hookLine(name, out), nil
	})
}

func hookLine(name string, out contract.HookOutput) string {
	line := fmt.Sprintf("%s hook (%s): %d call(s)", name, out.Kind, out.Calls)
	if len(out.Answers) > 0 {
		line += ", answers " + strings.Join(out.Answers, ", ")
	}
	if out.Waited > 0 {
		line += fmt.Sprintf(", waited %s", out.Waited)
	}
	return line
}

// hookLeftover says what a failed hook left: the instance as it was, the hook's own effects its own.
func (p *pipeline) hookLeftover(step string) (contract.Leftover, bool) {
	if name := hookOf(step); name != "" {
		st := hookState(p.in.From, p.in.Operation, "")
		if name == HookPostDeploy {
			st = hookState(p.in.Operation.Done(p.in.From), p.in.Operation, "")
		}
		return contract.Leftover{Kind: contract.LeftoverHook, ID: name,
			Detail: fmt.Sprintf("the %s hook failed; the instance was left %s (app %s, data %s); what the hook itself did before failing is in its output",
				name, st.State, st.App, st.Data),
			Cleanup: fmt.Sprintf("read the hook's output (slipway status %s --detail all); slipway retry %s runs it again; slipway resolve %s --skip-hook --reason ... goes on without it",
				p.in.Ref, p.in.Ref, p.in.Ref)}, true
	}
	return contract.Leftover{}, false
}

// hookCtx gives a hook its whole deadline, heartbeats included; only a lost worker is retried.
func hookCtx(ctx workflow.Context, deadline time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    deadline + time.Minute,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: deadline + 2*time.Minute,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	})
}

// drain runs the drain hook before the app or its data goes.
func (p *pipeline) drain() error { return p.hook(HookDrain) }
