package workerapp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
)

// fleet is activities.Fleet on Temporal: visibility lists the watched instances with the
// fingerprint each recorded as a search attribute, and a signal tells one what was seen.
type fleet struct{ c client.Client }

// fleetPage is the visibility page size: 10,000 instances are 10 calls.
const fleetPage = 1000

func (f fleet) Watched(ctx context.Context, taskQueue string) ([]activities.WatchedInstance, error) {
	query := watchedQuery(taskQueue)
	var out []activities.WatchedInstance
	var token []byte
	for {
		resp, err := f.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: query, PageSize: fleetPage, NextPageToken: token,
		})
		if err != nil {
			return nil, fmt.Errorf("list watched instances: %w", err)
		}
		for _, ex := range resp.Executions {
			ref, ok := refOf(ex.GetExecution().GetWorkflowId())
			if !ok {
				continue
			}
			w := activities.WatchedInstance{Ref: ref}
			if p := ex.GetSearchAttributes().GetIndexedFields()[contract.SAAppObserved.GetName()]; p != nil {
				// Search attributes are plain JSON, never run through the payload codec.
				_ = converter.GetDefaultDataConverter().FromPayload(p, &w.Fingerprint)
			}
			out = append(out, w)
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return out, nil
		}
	}
}

func (f fleet) Tell(ctx context.Context, ref contract.Ref, obs contract.Observation) error {
	err := f.c.SignalWorkflow(ctx, contract.InstanceWorkflowID(ref), "", contract.SignalObserved, obs)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil // closed since it was listed: nothing left to tell
	}
	return err
}

// watchedQuery lists the running instances of a task queue in a state the observer watches.
func watchedQuery(taskQueue string) string {
	var states []string
	for _, s := range lifecycle.AllStates {
		if observe.Observed(s) {
			states = append(states, "'"+string(s)+"'")
		}
	}
	return fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND TaskQueue = '%s' AND %s IN (%s)",
		contract.InstanceWorkflowName, taskQueue, contract.SAInstanceState.GetName(), strings.Join(states, ", "))
}

// refOf reads TENANT/NAME back from an instance workflow ID; labels never contain "/".
func refOf(workflowID string) (contract.Ref, bool) {
	rest, ok := strings.CutPrefix(workflowID, "instance/")
	if !ok {
		return contract.Ref{}, false
	}
	tenant, name, ok := strings.Cut(rest, "/")
	if !ok || tenant == "" || name == "" || strings.Contains(name, "/") {
		return contract.Ref{}, false
	}
	return contract.Ref{Tenant: tenant, Name: name}, true
}
