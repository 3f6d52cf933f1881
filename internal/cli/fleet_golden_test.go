package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func ref(tenant, name string) contract.Ref { return contract.Ref{Tenant: tenant, Name: name} }

// A plan over every kind of line: updates in two batches, a busy one, and each skip reason.
func TestGoldenRolloutPlan(t *testing.T) {
	spec := contract.RolloutSpec{ID: "r-1", Stack: "example", BatchSize: 2, MaxFailures: 1}
	plan := contract.RolloutPlan{Stack: "example", Head: "0123456789abcdef0123", Actions: []contract.RolloutAction{
		{Ref: ref("acme", "web-0"), State: "Deployed", Ready: "True", Action: contract.ActionUpdate, Current: "replicas=1", Desired: "replicas=2", Batch: 1},
		{Ref: ref("acme", "web-1"), State: "Deploying", Action: contract.ActionUpdate, Current: "replicas=1", Desired: "replicas=2", Batch: 1,
			Reason: "busy now (Deploying): tried in its batch, and in a later one if still busy"},
		{Ref: ref("acme", "web-2"), State: "Deployed", Ready: "True", Action: contract.ActionUpdate, Current: "replicas=1", Desired: "replicas=2", Batch: 2},
		{Ref: ref("acme", "web-3"), State: "Deployed", Ready: "True", Action: contract.ActionSkip, Current: "replicas=2", Desired: "replicas=2", Reason: contract.ReasonAtTarget},
		{Ref: ref("acme", "old"), State: "Archived", Action: contract.ActionSkip, Reason: "archived"},
		{Ref: ref("beta", "web"), State: "DeploymentFailed", Action: contract.ActionSkip,
			Reason: "failed (DeploymentFailed): decide first with slipway retry|resolve|abandon beta/web"},
	}}
	var out bytes.Buffer
	writeRolloutPlan(&out, spec, plan)
	golden(t, "rollout-plan.txt", out.Bytes())

	out.Reset()
	writeRolloutPlan(&out, contract.RolloutSpec{BatchPercent: 10}, contract.RolloutPlan{Stack: "example", Head: "abc"})
	golden(t, "rollout-plan-empty.txt", out.Bytes())
}

func TestGoldenRolloutStatus(t *testing.T) {
	st := &contract.RolloutStatus{ID: "rollout/r-1", Ready: 1, Updated: 2, Total: 3, RolloutState: contract.RolloutState{
		Spec: contract.RolloutSpec{ID: "r-1", Stack: "example"}, Phase: contract.PhaseStopped, Batch: 1, Batches: 2, Failures: 1,
		Reason: "1 instance(s) failed (--max-failures 1): acme/web-1; fix them, then resume (failed ones are retried) or abort",
		Instances: []contract.RolloutInstance{
			{RolloutAction: contract.RolloutAction{Ref: ref("acme", "web-0"), Desired: "replicas=2", Batch: 1}, Status: contract.RolloutUpdated},
			{RolloutAction: contract.RolloutAction{Ref: ref("acme", "web-1"), Desired: "replicas=2", Batch: 1}, Status: contract.RolloutFailed,
				Error: "DeploymentFailed 3-abc: at step tf-plan: state is locked"},
			{RolloutAction: contract.RolloutAction{Ref: ref("acme", "web-2"), Desired: "replicas=2", Batch: 2}, Status: contract.RolloutPending},
			{RolloutAction: contract.RolloutAction{Ref: ref("acme", "web-3"), Ready: "True", Reason: contract.ReasonAtTarget}, Status: contract.RolloutAtTarget},
		}}}
	st.Instances[0].Ready = "True"
	var out bytes.Buffer
	writeRolloutStatus(&out, st)
	golden(t, "rollout-status.txt", out.Bytes())
}

func TestGoldenDriftList(t *testing.T) {
	at := time.Date(2026, 11, 23, 21, 4, 5, 0, time.UTC)
	items := []client.DriftItem{
		{Ref: "acme/web", Stack: "example", CheckedAt: at, Revision: "0123456789abcdef0123",
			Resources: []string{"terraform_data.app (update)", "ConfigMap acme-web/app (Applied, NotPresent)"}},
		{Ref: "beta/api", Stack: "example", CheckedAt: at.Add(time.Minute), Revision: "fedcba9876543210", Resources: []string{"terraform_data.network (delete, create)"}},
	}
	var out bytes.Buffer
	writeDriftList(&out, items, time.FixedZone("UTC+2", 2*3600))
	golden(t, "drift-list.txt", out.Bytes())
	out.Reset()
	writeDriftList(&out, nil, time.UTC)
	golden(t, "drift-list-empty.txt", out.Bytes())
}

func TestGoldenDriftSweep(t *testing.T) {
	res := contract.DriftSweepResult{Checked: 3, Drifted: 1, Instances: []contract.DriftInstanceOutput{
		{Ref: ref("acme", "web"), Outcome: contract.DriftFound, Resources: []string{"terraform_data.app (update)"}},
		{Ref: ref("acme", "api"), Outcome: contract.DriftClean},
		{Ref: ref("beta", "web"), Outcome: contract.DriftBusy, Message: "beta/web is busy: deploy 4-abc is running"},
	}}
	var out bytes.Buffer
	writeDriftSweep(&out, res)
	golden(t, "drift-check.txt", out.Bytes())
}
