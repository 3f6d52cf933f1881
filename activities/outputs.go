package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// secretOutputReader is a Terraform that can read outputs unmasked (*terraform.Runner).
type secretOutputReader interface {
	SecretOutputs(ctx context.Context, ws terraform.Workspace, names []string) (map[string]any, error)
}

// secretOutputs reads the outputs the instance's stack sends to its Secret (schema.outputs.secret)
// from its state on this worker. The values stay inside the activity that hands them to the
// deployer: only their names ever reach history or status.
func (a *Activities) secretOutputs(ctx context.Context, ref contract.Ref, rev string) (map[string]string, error) {
	files, err := a.Forge.ReadDir(ctx, rev, ref.Dir())
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
	stack, _, err := a.instanceStack(ctx, rev, inst)
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
			"schema.outputs.secret: this worker's terraform cannot read outputs for the instance's Secret", contract.ErrRefused, nil)
	}
	tf, err := terraformOnly(files, ref, rev)
	if err != nil {
		return nil, err
	}
	var values map[string]any
	err = withHeartbeat(ctx, "read terraform outputs", func(ctx context.Context) error {
		if err := a.prepareFiles(ctx, ref, files, rev, stack.Schema.Credentials, tf, false); err != nil {
			return err
		}
		values, err = r.SecretOutputs(ctx, workspace(ref), names)
		return err
	})
	var missing *terraform.MissingOutputsError
	if errors.As(err, &missing) {
		return nil, temporal.NewNonRetryableApplicationError("stacks/"+inst.StackName()+": schema.outputs.secret: "+err.Error(),
			contract.ErrInvalidConfig, nil, []contract.FieldError{{Field: "stacks/" + inst.StackName() + ": schema.outputs.secret", Message: err.Error()}})
	}
	if err != nil {
		return nil, classify(err)
	}
	out := make(map[string]string, len(values))
	for n, v := range values {
		out[n] = contract.OutputString(v)
	}
	return out, nil
}

// renderedOutputs are the outputs the instance's manifests were last rendered with (its
// config.OutputsFile at rev), so a render of an unchanged instance is byte-identical; nil when
// the stack's manifests use none or the instance has none yet.
func (a *Activities) renderedOutputs(ctx context.Context, rev string, ref contract.Ref, stack *config.Stack) (map[string]string, error) {
	if !config.UsesOutputs(stack) {
		return nil, nil
	}
	files, err := a.Forge.ReadDir(ctx, rev, ref.Dir())
	if err != nil {
		return nil, classify(err)
	}
	data, ok := files[config.OutputsFile]
	if !ok {
		return nil, nil
	}
	out, err := config.ParseOutputsFile(data)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return out, nil
}

// RenderOutputs renders the manifests that use .Outputs again with the outputs the deploy's
// apply left in the state, from the stack and instance at the revision it applied (never a newer
// main), and merges them through an MR of slipway's own, so git holds what ArgoCD syncs. Only
// those manifests and config.OutputsFile change; sensitive outputs reach no template.
// A retry finds the MR of its branch, or the files already as rendered.
func (a *Activities) RenderOutputs(ctx context.Context, in contract.RenderOutputsInput) (contract.RenderOutputsOutput, error) {
	dir := in.Ref.Dir()
	files, err := a.Forge.ReadDir(ctx, in.Revision, dir)
	if err != nil {
		return contract.RenderOutputsOutput{}, classify(err)
	}
	if files[instanceFile] == nil {
		return contract.RenderOutputsOutput{}, notFoundf("no config for %s at %s", in.Ref, in.Revision)
	}
	inst, err := config.ParseInstance(files[instanceFile])
	if err != nil {
		return contract.RenderOutputsOutput{}, invalidConfig(err)
	}
	stack, _, err := a.instanceStack(ctx, in.Revision, inst)
	if err != nil {
		return contract.RenderOutputsOutput{}, err
	}
	targets := config.OutputManifests(stack)
	if len(targets) == 0 {
		return contract.RenderOutputsOutput{}, nil
	}
	tf, err := terraformOnly(files, in.Ref, in.Revision)
	if err != nil {
		return contract.RenderOutputsOutput{}, err
	}
	var raw map[string]any
	err = withHeartbeat(ctx, "read terraform outputs", func(ctx context.Context) error {
		if err := a.prepareFiles(ctx, in.Ref, files, in.Revision, stack.Schema.Credentials, tf, false); err != nil {
			return err
		}
		raw, err = a.Terraform.Outputs(ctx, workspace(in.Ref))
		return classify(err)
	})
	if err != nil {
		return contract.RenderOutputsOutput{}, err
	}
	outputs := make(map[string]string, len(raw))
	for n, v := range raw {
		outputs[n] = contract.OutputString(v) // sensitive ones are terraform.SensitiveOutput already
	}
	rendered, err := config.RenderWithOutputs(in.Ref, in.Ref.Derived().Namespace, stack, inst, outputs)
	if err != nil {
		return contract.RenderOutputsOutput{}, invalidConfig(err)
	}
	next := maps.Clone(files)
	var changed []string
	for _, p := range append(targets, config.OutputsFile) {
		if !bytes.Equal(next[p], rendered[p]) {
			next[p] = rendered[p]
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return contract.RenderOutputsOutput{}, nil
	}
	// The MR replaces the directory on main: it must still be the one the deploy applied.
	head, err := a.Forge.ReadDir(ctx, "", dir)
	if err != nil {
		return contract.RenderOutputsOutput{}, classify(err)
	}
	branch := contract.BranchFor(in.Ref, "outputs", in.OpID)
	mr, found, err := a.Forge.Get(ctx, branch)
	if err != nil {
		return contract.RenderOutputsOutput{}, classify(err)
	}
	if !found && !sameFiles(head, files) {
		return contract.RenderOutputsOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"%s changed on main since %s, the revision this deploy applied: its outputs are not rendered over a change slipway did not make; deploy again",
			dir, in.Revision), contract.ErrRenderChanged, nil)
	}
	if !found {
		mr, err = a.Forge.Open(forgeNotes(ctx, "instance", in.Ref.String()), forge.Change{Branch: branch,
			Title: fmt.Sprintf("slipway: outputs of %s %s", in.Operation, in.Ref),
			Body: fmt.Sprintf("Operation %s %s of instance %s: the manifests that use terraform outputs, rendered with the outputs of the apply at %s, by slipway.",
				in.Operation, in.OpID, in.Ref, in.Revision),
			Dir: dir, Files: next})
		if err != nil {
			return contract.RenderOutputsOutput{}, classify(err)
		}
	}
	if mr.NoChanges {
		return contract.RenderOutputsOutput{}, nil
	}
	if err := a.checkBranch(ctx, mr, dir, next); err != nil {
		return contract.RenderOutputsOutput{}, err
	}
	merged, err := a.Forge.Merge(forgeNotes(ctx, "instance", in.Ref.String()), mr)
	if err != nil {
		return contract.RenderOutputsOutput{}, classify(err)
	}
	return contract.RenderOutputsOutput{MR: &merged, Files: changed}, nil
}

func sameFiles(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}
