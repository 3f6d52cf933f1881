package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// budgetTF creates terraform_data.first at once and then sleeps in the real time provider, which
// stops sleeping when terraform is interrupted.
const budgetTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "terraform_data" "first" {
  input = {{ quote .Params.greeting }}
}
resource "time_sleep" "wait" {
  create_duration  = "15s"
  destroy_duration = "15s"
}
resource "terraform_data" "after" {
  depends_on = [time_sleep.wait]
  input      = "done"
}
`

// A stack's apply budget that runs out interrupts the real terraform mid-apply: the step is
// DeploymentFailed with a leftover naming the budget, what terraform finished is in the state,
// nothing is tainted and the lock is released; raising the budget on main and retrying deploys.
func TestApplyBudgetInterruptsTerraformCleanly(t *testing.T) {
	useTimeMirror(t)
	e := testsuite.NewEnv(t)
	schema := func(apply string) []byte {
		return []byte(brokenSchema + "timeouts:\n  apply: " + apply + "\n  destroy: 3s\n")
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "add the slow stack", map[string][]byte{
		"stacks/slow/schema.yaml":             schema("3s"),
		"stacks/slow/terraform/main.tf.tmpl":  []byte(fmt.Sprintf(budgetTF, tfmirror.TimeVersion)),
		"stacks/slow/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	ref := contract.Ref{Tenant: "budget", Name: "slow"}
	var figures []string
	e.MustCLI(0, "create", "budget/slow", "-f", writeFile(t, "stack: slow\nparameters:\n  greeting: hello\n"), "--wait")

	out := e.MustCLI(1, "deploy", "budget/slow", "--wait")
	require.Contains(t, out.Stdout, "budget/slow is DeploymentFailed")
	st := e.Status("budget/slow")
	require.Equal(t, lifecycle.DeploymentFailed, st.State)
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.TFApply, st.Failure.Step)
	require.Equal(t, contract.ErrBudget, st.Failure.Type, "the activity stopped itself, not Temporal's timeout: %+v", st.Failure)
	require.Contains(t, st.Failure.Error, "apply budget 3s (schema.timeouts.apply) ran out")
	var budget *contract.Leftover
	for i, l := range st.Failure.Leftovers {
		require.NotEqual(t, contract.LeftoverLock, l.Kind, "the interrupted terraform released its lock: %+v", l)
		if l.Kind == contract.LeftoverBudget {
			budget = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, budget, "leftovers: %+v", st.Failure.Leftovers)
	require.Equal(t, "schema.timeouts.apply", budget.ID)
	require.Contains(t, budget.Detail, "apply budget 3s (schema.timeouts.apply) ran out")
	require.Contains(t, budget.Cleanup, "raise schema.timeouts.apply")
	for _, s := range st.Operation.Steps {
		if s.Name == contract.TFApply && s.Status == contract.StepFailed {
			took := s.EndedAt.Sub(s.StartedAt)
			figures = append(figures, fmt.Sprintf("budgets: apply budget 3s -> step failed after %v (terraform interrupted and exited)", took.Round(time.Millisecond)))
			require.Less(t, took, 15*time.Second, "the budget cut the 15s sleep short")
		}
	}
	require.NoError(t, lockFree(t, e, ref))
	res := e.Resources(ref)
	var addrs []string
	for _, r := range res {
		require.False(t, r.Tainted, "%s tainted by the interrupt", r.Address)
		addrs = append(addrs, r.Address)
	}
	require.Equal(t, []string{"terraform_data.first"}, addrs, "what terraform finished before the budget ran out is in the state")
	require.Empty(t, terraformProcesses(t, e.StateDir), "nothing of the interrupted terraform is left running")

	// The operator raises the budget on main; the retry reads it at the new revision.
	testsuite.PushFiles(t, e.GitOpsRepo, "raise the apply budget", map[string][]byte{"stacks/slow/schema.yaml": schema("2m")})
	out = e.MustCLI(0, "retry", "budget/slow", "--wait")
	require.Contains(t, out.Stdout, "budget/slow is Deployed")
	res = e.Resources(ref)
	require.Len(t, res, 3)
	for _, r := range res {
		require.False(t, r.Tainted, "%s tainted", r.Address)
	}

	// The destroy budget: time_sleep sleeps 15s on destroy too, so the 3s budget runs out there.
	out = e.MustCLI(1, "destroy", "budget/slow", "--wait")
	require.Contains(t, out.Stdout, "budget/slow is DestroyFailed")
	st = e.Status("budget/slow")
	require.Equal(t, contract.TFDestroy, st.Failure.Step)
	require.Equal(t, contract.ErrBudget, st.Failure.Type, "%+v", st.Failure)
	require.Contains(t, st.Failure.Error, "destroy budget 3s (schema.timeouts.destroy) ran out")
	budget = nil
	for i, l := range st.Failure.Leftovers {
		require.NotEqual(t, contract.LeftoverLock, l.Kind, "the interrupted terraform released its lock: %+v", l)
		if l.Kind == contract.LeftoverBudget {
			budget = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, budget, "leftovers: %+v", st.Failure.Leftovers)
	require.Equal(t, "schema.timeouts.destroy", budget.ID)
	require.NoError(t, lockFree(t, e, ref))
	addrs = nil
	for _, r := range e.Resources(ref) {
		require.False(t, r.Tainted, "%s tainted by the interrupt", r.Address)
		addrs = append(addrs, r.Address)
	}
	require.Contains(t, addrs, "time_sleep.wait", "the sleep the budget cut short is still in the state")
	require.NotContains(t, addrs, "terraform_data.after", "what terraform destroyed before the budget ran out is gone from the state")
	d := step(t, st, contract.TFDestroy)
	figures = append(figures, fmt.Sprintf("budgets: destroy budget 3s -> step failed after %v", d.EndedAt.Sub(d.StartedAt).Round(time.Millisecond)))
	for _, f := range figures {
		t.Log(f)
	}
	if dir := os.Getenv("SLIPWAY_FIGURES_DIR"); dir != "" { // make test prints it
		require.NoError(t, os.WriteFile(filepath.Join(dir, "budgets.txt"), []byte(strings.Join(figures, "\n")+"\n"), 0o644))
	}
	require.Empty(t, terraformProcesses(t, e.StateDir), "nothing of the interrupted terraform is left running")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "stack-budgets")
}

// terraformProcesses lists live processes whose working directory is under stateDir.
func terraformProcesses(t *testing.T, stateDir string) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && strings.HasPrefix(cwd, stateDir+string(filepath.Separator)) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}

// A budget that is not a duration, or out of bounds, is refused at create with exit 2 naming
// the field, and nothing changes.
func TestABadBudgetIsRefusedNamingItsField(t *testing.T) {
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "stacks with bad budgets", map[string][]byte{
		"stacks/soon/schema.yaml":             []byte(brokenSchema + "timeouts: {apply: soon}\n"),
		"stacks/soon/terraform/main.tf.tmpl":  []byte(brokenTF),
		"stacks/soon/manifests/app.yaml.tmpl": []byte(brokenManifest),
		"stacks/long/schema.yaml":             []byte(brokenSchema + "timeouts: {destroy: 48h}\n"),
		"stacks/long/terraform/main.tf.tmpl":  []byte(brokenTF),
		"stacks/long/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	for stack, want := range map[string]string{
		"soon": `schema.timeouts.apply: "soon" is not a Go duration such as 30m or 2h`,
		"long": "schema.timeouts.destroy: must be between 1s and 24h0m0s, got 48h0m0s",
	} {
		r := e.CLI("create", "budget/"+stack, "-f", writeFile(t, "stack: "+stack+"\nparameters:\n  greeting: hello\n"), "--wait")
		require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
		require.Contains(t, r.Stderr, want)
		require.Empty(t, testsuite.Branches(t, e.GitOpsRepo, "slipway/budget/"+stack+"/"), "nothing changed")
	}
}

// gatedTF reads a file at plan time: a FIFO there (no writer) makes terraform wait at the plan
// for as long as nothing stops it, even after SIGINT.
const gatedTF = `locals {
  gate = file(%q)
}
resource "terraform_data" "app" {
  input = "${local.gate} {{ .Params.greeting }}"
}
`

// A drift check runs init and the plan under the stack's plan budget, as a deploy's plan does:
// a plan that hangs is cut off when the budget runs out (not after the step's hour), the check
// is refused naming the budget and records no verdict, and the next check runs.
func TestDriftCheckRunsUnderThePlanBudget(t *testing.T) {
	gates := t.TempDir()
	t.Setenv(terraform.EnvSandboxBinds, gates) // the sandboxed plan reads the gate
	e := testsuite.NewEnv(t)
	gate := filepath.Join(gates, "gate")
	require.NoError(t, os.WriteFile(gate, []byte("open"), 0o644))
	testsuite.PushFiles(t, e.GitOpsRepo, "add the gated stack", map[string][]byte{
		"stacks/gated/schema.yaml":             []byte(brokenSchema + "timeouts:\n  plan: 20s\n"),
		"stacks/gated/terraform/main.tf.tmpl":  []byte(fmt.Sprintf(gatedTF, gate)),
		"stacks/gated/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	ref := contract.Ref{Tenant: "budgetdrift", Name: "gated"}
	e.MustCLI(0, "create", "budgetdrift/gated", "-f", writeFile(t, "stack: gated\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "budgetdrift/gated", "--wait")

	require.NoError(t, os.Remove(gate))
	require.NoError(t, syscall.Mkfifo(gate, 0o644))
	start := time.Now()
	out := e.MustCLI(0, "drift", "check", "--tenant", "budgetdrift")
	took := time.Since(start)
	require.Regexp(t, `budgetdrift/gated\s+refused \(the drift check failed: plan budget 20s \(schema\.timeouts\.plan\) ran out`, out.Stdout)
	require.Less(t, took, 10*time.Minute, "the budget, not the step's hour, ended the check")
	t.Logf("budgets: drift check with plan budget 20s on a hanging plan -> refused after %v", took.Round(time.Millisecond))
	st := e.Status("budgetdrift/gated")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Nil(t, st.Drift, "a check the budget cut off records no verdict")
	require.Empty(t, terraformProcesses(t, e.StateDir), "nothing of the interrupted terraform is left running")
	require.NoError(t, lockFree(t, e, ref))

	require.NoError(t, os.Remove(gate))
	require.NoError(t, os.WriteFile(gate, []byte("open"), 0o644))
	out = e.MustCLI(0, "drift", "check", "--tenant", "budgetdrift")
	require.Contains(t, out.Stdout, "1 checked, 0 drifted")
}
