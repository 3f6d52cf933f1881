package workerapp

import (
	"context"
	"errors"

	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// dependencies reads the instances stacks depend on, as the CLI would.
type dependencies struct{ c *slipclient.Client }

func (d dependencies) Instance(ctx context.Context, ref contract.Ref) (*contract.DependencyInstance, error) {
	st, err := d.c.Status(ctx, ref, contract.StatusRequest{})
	var nf *slipclient.NotFoundError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := &contract.DependencyInstance{Ref: ref, Stack: st.Stack, State: string(st.State), Failed: st.State.Failed(),
		Outputs: st.Outputs, Dependencies: st.Dependencies}
	for _, c := range st.Conditions {
		if c.Type == lifecycle.CondReady {
			out.Ready = string(c.Status)
		}
	}
	return out, nil
}

func (d dependencies) Users(ctx context.Context, ref contract.Ref) ([]contract.Ref, error) {
	return d.c.Users(ctx, ref)
}

func (d dependencies) Plan(ctx context.Context, ref contract.Ref, configYAML, actor, requestID string) error {
	ctx, cancel := context.WithTimeout(ctx, acceptWait)
	defer cancel()
	req := contract.OperationRequest{ConfigYAML: configYAML, Actor: actor}
	_, err := d.c.Submit(ctx, ref, lifecycle.OpPlan, req, requestID)
	return refusal(err)
}
