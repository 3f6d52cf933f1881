package e2e

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
)

// Drift on a Temporal Schedule, with real git and terraform: an edit of one instance's terraform
// state behind slipway's back is found by the next scheduled check, which marks it Drifted
// (condition, search attribute, drift list) and changes nothing; a deploy clears it.
func TestScheduledDriftCheckFindsAnOutOfBandEditAndDeployClearsIt(t *testing.T) {
	e := testsuite.NewEnv(t)
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	for _, ref := range []string{"drift/web", "drift/api"} {
		e.MustCLI(0, "create", ref, "-f", cfg, "--wait")
		e.MustCLI(0, "deploy", ref, "--wait")
	}

	bad := e.CLI("drift", "schedule", "--every", "1m", "--tenant", "drift")
	require.Equal(t, 2, bad.Code)
	require.Contains(t, bad.Stderr, "--every 1m0s: must be at least 5m0s")
	e.MustCLI(0, "drift", "schedule", "--every", "6h", "--tenant", "drift", "--id", "drift-e2e")
	sched, err := e.Client.Temporal.ScheduleClient().GetHandle(t.Context(), "drift/drift-e2e").Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, enumspb.SCHEDULE_OVERLAP_POLICY_SKIP, sched.Schedule.Policy.Overlap)

	state := tamperState(t, e, "drift", "web")
	serial := stateSerial(t, state)
	runSchedule(t, e, "drift/drift-e2e")

	st := e.Status("drift/web")
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondDrifted), "%+v", st.Conditions)
	require.NotNil(t, st.Drift)
	require.Equal(t, []string{"terraform_data.app (update)"}, st.Drift.Resources)
	require.Equal(t, lifecycle.ConditionFalse, condition(e.Status("drift/api").Conditions, lifecycle.CondDrifted))
	require.Equal(t, serial, stateSerial(t, state), "the check applied nothing")
	list := e.MustCLI(0, "drift", "list", "--tenant", "drift")
	require.Contains(t, list.Stdout, "drift/web")
	require.Contains(t, list.Stdout, "terraform_data.app (update)")
	require.NotContains(t, list.Stdout, "drift/api")
	listed := e.MustCLI(0, "list", "--tenant", "drift", "--json")
	require.Contains(t, listed.Stdout, `"drifted": "True"`)

	e.MustCLI(0, "deploy", "drift/web", "--wait")
	st = e.Status("drift/web")
	require.Equal(t, lifecycle.ConditionFalse, condition(st.Conditions, lifecycle.CondDrifted))
	require.Contains(t, st.Drift.ClearedBy, "deploy")
	require.Contains(t, e.MustCLI(0, "drift", "list", "--tenant", "drift").Stdout, "no drifted instances")

	check := e.MustCLI(0, "drift", "check", "--tenant", "drift")
	require.Contains(t, check.Stdout, "2 checked, 0 drifted", "the redeploy put the state back")

	// A check that cannot run (terraform's lock is held) is reported for that instance, not retried for an hour.
	unlock := lockState(t, e, "drift", "api")
	locked := e.MustCLI(0, "drift", "check", "--tenant", "drift")
	require.Regexp(t, `drift/api\s+refused \(the drift check failed: terraform plan for workspace drift/api: state is locked`, locked.Stdout)
	unlock()

	// remediate: deploy sends a drifted instance a normal deploy, which re-applies its config.
	tamperState(t, e, "drift", "api")
	fixed := e.MustCLI(0, "drift", "check", "--tenant", "drift", "--remediate", "deploy")
	require.Regexp(t, `drift/api\s+remediating: terraform_data.app \(update\)`, fixed.Stdout)
	require.Eventually(t, func() bool {
		st := e.Status("drift/api")
		return st.State == lifecycle.Deployed && st.Drift != nil && !st.Drift.Drifted && st.Drift.ClearedBy != ""
	}, time.Minute, 100*time.Millisecond, "the remediating deploy ends and clears the drift")
	require.Contains(t, e.MustCLI(0, "drift", "check", "--tenant", "drift").Stdout, "2 checked, 0 drifted")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "drift", Name: "web"}), "drift")
	e.MustCLI(0, "drift", "unschedule", "drift-e2e")
	gone := e.CLI("drift", "unschedule", "drift-e2e")
	require.Equal(t, 2, gone.Code, gone.Stderr)
}

// tamperState edits an instance's local terraform state as someone working around slipway would:
// terraform_data.app's replicas become 99, which no config here says.
func tamperState(t *testing.T, e *testsuite.Env, tenant, name string) string {
	runner, ok := e.Activities.Terraform.(*terraform.Runner)
	require.True(t, ok, "the env runs real terraform")
	path := runner.StatePath(terraform.Workspace{Tenant: tenant, Name: name})
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	first := true
	edited := regexp.MustCompile(`"replicas": \d+`).ReplaceAllStringFunc(string(data), func(m string) string {
		if !first {
			return m
		}
		first = false
		return `"replicas": 99`
	})
	require.NotEqual(t, string(data), edited, "state:\n%s", data)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
	return path
}

func stateSerial(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var s struct{ Serial int }
	require.NoError(t, json.Unmarshal(data, &s))
	return s.Serial
}

// runSchedule runs the schedule's action now, as its next tick would, and waits for that sweep.
func runSchedule(t *testing.T, e *testsuite.Env, id string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h := e.Client.Temporal.ScheduleClient().GetHandle(ctx, id)
	before := sweeps(t, e, ctx)
	require.NoError(t, h.Trigger(ctx, client.ScheduleTriggerOptions{}))
	var runID, wid string
	require.Eventually(t, func() bool {
		d, err := h.Describe(ctx)
		require.NoError(t, err)
		for _, a := range d.Info.RecentActions {
			if a.StartWorkflowResult != nil && !before[a.StartWorkflowResult.FirstExecutionRunID] {
				wid, runID = a.StartWorkflowResult.WorkflowID, a.StartWorkflowResult.FirstExecutionRunID
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "the schedule started no sweep")
	var res contract.DriftSweepResult
	require.NoError(t, e.Client.Temporal.GetWorkflow(ctx, wid, runID).Get(ctx, &res))
	t.Logf("scheduled sweep %s: %d checked, %d drifted", wid, res.Checked, res.Drifted)
	testsuite.RecordHistories(t, e.Client.Temporal, wid, "drift-sweep")
}

func sweeps(t *testing.T, e *testsuite.Env, ctx context.Context) map[string]bool {
	resp, err := e.Client.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: "WorkflowType = '" + contract.DriftSweepWorkflowName + "'"})
	require.NoError(t, err)
	out := map[string]bool{}
	for _, ex := range resp.Executions {
		out[ex.GetExecution().GetRunId()] = true
	}
	return out
}
