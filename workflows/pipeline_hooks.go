package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
)

// Hook names as stacks declare them.
const (
	HookDrain      = "drain"
	HookPostDeploy = "post-deploy"
)

// hookSteps pairs each hook with the step that runs it.
var hookSteps = []struct{ hook, step string }{{HookDrain, steps.DrainHook}, {HookPostDeploy, steps.PostDeployHook}}

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
func hookState(st lifecycle.State, op lifecycle.Operation, reason string) steps.HookState {
	hs := steps.HookState{State: string(st), App: "deleted", Data: "deleted", Operation: string(op), Reason: reason}
	switch st {
	case lifecycle.Deployed:
		hs.App, hs.Data = "running", "available"
	case lifecycle.Archived:
		hs.App, hs.Data = "stopped", "available"
	}
	return hs
}

// hook runs the stack's hook name, when it declares one, told where the instance is and where
// the operation takes it. It is durable: once it has run, a retry goes on past it.
func (p *pipeline) hook(name string) error {
	if !p.controls {
		return nil
	}
	info, ok := p.progress.Controls.Hook(name)
	if !ok {
		return nil
	}
	return p.run(hookStep(name), true, func(ctx workflow.Context) (string, error) {
		reason := fmt.Sprintf("%s of %s (operation %s)", p.in.Operation, p.in.Ref, p.in.OpID)
		// Both hooks are told the state the operation started from and the one it goes to.
		in := steps.HookInput{Ref: p.in.Ref, OpID: p.in.OpID, Attempt: p.in.Attempt, Hook: name, Revision: p.progress.Revision,
			Current:  hookState(p.in.From, p.in.Operation, reason),
			Next:     hookState(p.in.Operation.Done(p.in.From), p.in.Operation, reason),
			Deadline: workflow.Now(ctx).Add(info.Deadline)}
		var out steps.HookOutput
		err := workflow.ExecuteActivity(hookCtx(ctx, info.Deadline), steps.ActRunHook, in).Get(ctx, &out)
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

func hookLine(name string, out steps.HookOutput) string {
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
func (p *pipeline) hookLeftover(step string) (steps.Leftover, bool) {
	if name := hookOf(step); name != "" {
		st := hookState(p.in.From, p.in.Operation, "")
		if name == HookPostDeploy {
			st = hookState(p.in.Operation.Done(p.in.From), p.in.Operation, "")
		}
		return steps.Leftover{Kind: steps.LeftoverHook, ID: name,
			Detail: fmt.Sprintf("the %s hook failed; the instance was left %s (app %s, data %s); what the hook itself did before failing is in its output",
				name, st.State, st.App, st.Data),
			Cleanup: fmt.Sprintf("read the hook's output (slipway status %s --detail all); slipway retry %s runs it again; slipway resolve %s --skip-hook --reason ... goes on without it",
				p.in.Ref, p.in.Ref, p.in.Ref)}, true
	}
	return steps.Leftover{}, false
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
