package activities

import (
	"context"
	"errors"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/stackenv"
)

// ErrHookFailed is a hook that failed, answered nonsense or ran out of time: the step fails
// and the operator decides (retry runs it again, resolve --skip-hook goes on).
const ErrHookFailed = "HookFailed"

// hookNames lists the hooks a stack declares, with their deadlines.
func hookNames(s *config.Schema) []contract.HookInfo {
	var out []contract.HookInfo
	for _, h := range s.Hooks {
		out = append(out, contract.HookInfo{Name: h.Name, Kind: h.Kind, Deadline: h.Deadline})
	}
	return out
}

// RunHook runs one of the stack's hooks at the revision, told the instance's current and next
// state and its terraform outputs. Its output comes back redacted, also with a failure.
func (a *Activities) RunHook(ctx context.Context, in contract.HookInput) (contract.HookOutput, error) {
	if err := a.fence(ctx); err != nil {
		return contract.HookOutput{}, err
	}
	// The instance's directory is read once: its config, its script and its terraform files.
	dir := in.Ref.Dir()
	files, err := a.Forge.ReadDir(ctx, in.Revision, dir)
	if err != nil {
		return contract.HookOutput{}, classify(err)
	}
	if files[instanceFile] == nil {
		return contract.HookOutput{}, notFoundf("no config for %s at %s", in.Ref, in.Revision)
	}
	inst, err := config.ParseInstance(files[instanceFile])
	if err != nil {
		return contract.HookOutput{}, invalidConfig(err)
	}
	stack, _, err := a.instanceStack(ctx, in.Revision, inst)
	if err != nil {
		return contract.HookOutput{}, err
	}
	spec, ok := stack.Schema.Hook(in.Hook)
	if !ok {
		return contract.HookOutput{}, nil
	}
	credEnv, credFiles, credSecrets, err := a.hookCredentials(in.Ref, stack)
	if err != nil {
		return contract.HookOutput{}, err
	}
	creds := []string{}
	if stack.Schema.Credentials != nil {
		creds = stack.Schema.Credentials
	}
	outputs, err := a.hookOutputs(ctx, in, files, creds)
	if err != nil {
		return contract.HookOutput{}, err
	}
	call := hooks.Call{Spec: spec, Tenant: in.Ref.Tenant, Name: in.Ref.Name, Operation: in.Current.Operation,
		Current: in.Current, Next: in.Next, Outputs: outputs, Parameters: inst.Parameters, Deadline: in.Deadline}
	if d := time.Now().Add(spec.Deadline); d.Before(call.Deadline) {
		// A drain inside a longer step (a cluster leaving the placement) keeps the hook's own deadline.
		call.Deadline = d
	}
	switch spec.Kind {
	case hooks.KindExec:
		if call.Script = files[spec.Exec]; call.Script == nil {
			return contract.HookOutput{}, notFoundf("%s/%s is missing at %s", dir, spec.Exec, in.Revision)
		}
	case hooks.KindHTTP:
		data := hooks.URLData{Tenant: in.Ref.Tenant, Name: in.Ref.Name, Parameters: inst.Parameters, Outputs: outputs}
		if call.URL, err = hooks.Render(spec.URL, data); err != nil {
			return contract.HookOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrHookFailed, nil)
		}
	}
	secrets, err := a.Secrets.Get(ctx, in.Ref.Tenant, in.Ref.Name)
	if err != nil {
		return contract.HookOutput{}, err
	}
	r := hooks.Runner{HTTP: a.HookHTTP, Env: append(hookEnv(a.StackEnv, inst.StackName()), credEnv...), Files: credFiles, Sandbox: a.HookSandbox,
		Heartbeat: func(detail string) {
			if activity.IsActivity(ctx) {
				activity.RecordHeartbeat(ctx, detail)
			}
		}}
	out, err := r.Run(ctx, call)
	red := newRedactor(secrets)
	red.values = append(red.values, credSecrets...)
	out.Output = red.text(out.Output)
	for i, s := range out.Answers {
		out.Answers[i] = red.text(s)
	}
	if isHookError(err) {
		// The hook's answer, not a blip: the operator decides, with the output in the record.
		return out, temporal.NewNonRetryableApplicationError(red.text(err.Error()), ErrHookFailed, nil, out)
	}
	return out, err
}

// hookOutputs reads the instance's terraform outputs; none before its first apply.
func (a *Activities) hookOutputs(ctx context.Context, in contract.HookInput, dir map[string][]byte, creds []string) (map[string]any, error) {
	tf, err := terraformOnly(dir, in.Ref, in.Revision)
	if err != nil {
		return nil, err
	}
	if err := a.prepareFiles(ctx, in.Ref, dir, in.Revision, creds, tf, false); err != nil {
		return nil, err
	}
	out, err := a.Terraform.Outputs(ctx, workspace(in.Ref))
	return out, classify(err)
}

func isHookError(err error) bool {
	var (
		fe *hooks.FailedError
		de *hooks.DeadlineError
		ae *hooks.AnswerError
		ie *hooks.InvalidSpecError
	)
	return errors.As(err, &fe) || errors.As(err, &de) || errors.As(err, &ae) || errors.As(err, &ie)
}

// hookEnv is what an exec hook inherits from the worker: a PATH, a scratch HOME and the
// variables the operator allows its stack, nothing else.
func hookEnv(allow stackenv.AllowList, stack string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TZ=UTC", "LANG=C.UTF-8"}
	allowed := allow.Values(stack, os.LookupEnv)
	for _, k := range allow.Names(stack) {
		if v, ok := allowed[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
