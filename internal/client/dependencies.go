package client

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Users are the running instances whose stack depends on ref (search attribute InstanceDependencies),
// in the order visibility lists them.
func (c *Client) Users(ctx context.Context, ref contract.Ref) ([]contract.Ref, error) {
	q := fmt.Sprintf("WorkflowType = '%s' AND %s = %s AND ExecutionStatus = 'Running'",
		contract.InstanceWorkflowName, contract.SAInstanceDependencies.GetName(), literal(ref.String()))
	var users []contract.Ref
	var token []byte
	for {
		resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.Namespace, Query: q, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list the users of %s: %w", ref, err)
		}
		for _, ex := range resp.Executions {
			id := strings.TrimPrefix(ex.GetExecution().GetWorkflowId(), "instance/")
			if tenant, name, ok := strings.Cut(id, "/"); ok {
				users = append(users, contract.Ref{Tenant: tenant, Name: name})
			}
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return users, nil
		}
	}
}

// checkUnused refuses to destroy or deprovision an instance other instances depend on (Crossplane's
// Usage), naming them: their next render could not read its outputs, nor their gate clear. It is
// the fast, eventually consistent early error; the instance's own workflow decides (admitTeardown).
func (c *Client) checkUnused(ctx context.Context, ref contract.Ref, op lifecycle.Operation) error {
	if op != lifecycle.OpDestroy && op != lifecycle.OpDeprovision {
		return nil
	}
	users, err := c.Users(ctx, ref)
	if err != nil || len(users) == 0 {
		return err
	}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.String()
	}
	return &RejectedError{Message: fmt.Sprintf("%s: %s refused: instance(s) %s depend on it (schema.dependencies); deprovision them, or point them elsewhere, first",
		ref, op, strings.Join(names, ", "))}
}
