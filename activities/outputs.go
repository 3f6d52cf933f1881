package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// secretOutputReader is a Terraform that can read outputs unmasked (*terraform.Runner).
type secretOutputReader interface {
	SecretOutputs(ctx context.Context, ws terraform.Workspace, names []string) (map[string]any, error)
}

// secretOutputs reads the outputs the instance's stack sends to its Secret (schema.outputs.secret)
// from its state on this worker. The values stay inside the activity that hands them to the
// deployer: only their names ever reach history or status.
func (a *Activities) secretOutputs(ctx context.Context, ref steps.Ref, rev string) (map[string]string, error) {
	files, err := a.Forge.ReadDir(ctx, rev, configRef(ref).Dir())
	if err != nil {
		return nil, classify(err)
	}
	if files[instanceFile] == nil {
		return nil, nil
	}
	inst, err := config.ParseInstance(files[instanceFile])
	if err != nil {
		return nil, invalidConfig(err)
	}
	stack, err := a.loadStack(ctx, rev, inst.Stack)
	if err != nil {
		return nil, err
	}
	names := stack.Schema.Outputs.Secret
	if len(names) == 0 {
		return nil, nil
	}
	r, ok := a.Terraform.(secretOutputReader)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError(
			"schema.outputs.secret: this worker's terraform cannot read outputs for the instance's Secret", steps.ErrRefused, nil)
	}
	tf, err := terraformOnly(files, ref, rev)
	if err != nil {
		return nil, err
	}
	if err := a.prepareFiles(ctx, ref, files, tf, false); err != nil {
		return nil, err
	}
	values, err := r.SecretOutputs(ctx, workspace(ref), names)
	var missing *terraform.MissingOutputsError
	if errors.As(err, &missing) {
		return nil, temporal.NewNonRetryableApplicationError("stacks/"+inst.Stack+": schema.outputs.secret: "+err.Error(),
			steps.ErrInvalidConfig, nil, []steps.FieldError{{Field: "stacks/" + inst.Stack + ": schema.outputs.secret", Message: err.Error()}})
	}
	if err != nil {
		return nil, classify(err)
	}
	out := make(map[string]string, len(values))
	for n, v := range values {
		out[n] = steps.OutputString(v)
	}
	return out, nil
}
