package workflows

import (
	"fmt"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func (e *entity) status(req contract.StatusRequest) (contract.Status, error) {
	out := req.Output
	if out == "" {
		out = contract.OutputSummary
	}
	if !contract.ValidOutput(out) {
		return contract.Status{}, fmt.Errorf("output: %q is not one of summary, all, detail, rsync", req.Output)
	}
	s := e.s
	st := contract.Status{
		Name: s.Ref.String(), Tenant: s.Ref.Tenant, Instance: s.Ref.Name, Stack: s.Stack, State: s.State,
		Allowed: lifecycle.Allowed(s.State), Deployer: s.Deployer, Revision: s.Revision, Deployed: s.DeployedRevision, Rollout: s.Rollout,
		ControlPlane: s.ControlPlane, Outputs: s.Outputs, Dependencies: s.Dependencies, Dependents: s.Dependents,
		Protection: s.Protection, Expiry: s.Expiry, Labels: s.Labels,
		Conditions: s.Conditions, RsyncStatus: map[string]int{}, Names: s.Ref.Names, Observed: s.Observed,
	}
	if e.busy {
		st.Allowed = nil
	}
	if st.Conditions == nil {
		st.Conditions = []lifecycle.Condition{}
	}
	if d := e.driftCondition(); d != nil {
		st.Conditions = append(append([]lifecycle.Condition(nil), st.Conditions...), *d)
		st.Drift = s.Drift
	}
	if c := e.scheduledCondition(); c != nil {
		st.Conditions = append(append([]lifecycle.Condition(nil), st.Conditions...), *c)
	}
	if c := e.staleCondition(); c != nil {
		st.Conditions = append(append([]lifecycle.Condition(nil), st.Conditions...), *c)
	}
	st.Gates, st.Waiting = s.Gates, s.Waiting
	if c := e.approvalCondition(); c != nil {
		st.Conditions = append(append([]lifecycle.Condition(nil), st.Conditions...), *c)
		st.Approval = s.Approval
	}
	if c := e.retryingCondition(); c != nil {
		st.Conditions = append(append([]lifecycle.Condition(nil), st.Conditions...), *c)
	}
	if op := s.Current; op != nil {
		st.Operation = operationStatus(*op, true)
		st.Operation.Retrying = e.retryingNow()
		if s.State.Failed() {
			st.Failure = op.Failure
		}
	}
	picked := contract.FilterResources(s.Resources, req)
	st.RsyncStatus, st.ClusterStatus = contract.Counts(picked)
	if out == contract.OutputSummary {
		return st, nil
	}
	if out == contract.OutputRsync {
		// What was rendered and where rsync got with it (EMCO's table: rsync-status counts and each
		// resource's), without what the cluster made of it: no cluster-status, no logs.
		st.ClusterStatus = nil
		st.Resources = contract.GroupResources(picked, out)
		return st, nil
	}
	st.Render = s.Render
	st.Resources = contract.GroupResources(picked, out)
	st.Infrastructure, st.Decisions, st.Abandoned = s.Infrastructure, s.Decisions, s.Abandoned
	st.Observations, st.GateLog, st.ApprovalLog = s.Observations, s.GateLog, s.ApprovalLog
	for _, h := range s.History {
		st.History = append(st.History, *operationStatus(h, false))
	}
	return st, nil
}

func operationStatus(op contract.Operation, withSteps bool) *contract.OperationStatus {
	os := &contract.OperationStatus{ID: op.ID, Kind: op.Kind, Step: op.Step, Result: op.Result, Attempt: op.Attempt,
		Pipeline: op.Pipeline, Actor: op.Actor, StartedAt: op.StartedAt, EndedAt: op.EndedAt, Plan: op.Plan, Cancel: op.Cancel}
	if r := op.Requester; r != nil && r.Name != "" && r.Name != op.Actor {
		os.Actor, os.Note = r.Name, op.Actor
	}
	if withSteps {
		os.Steps, os.Diff = op.Steps, op.Diff
	}
	return os
}
