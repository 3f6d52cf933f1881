package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// cancelTF creates terraform_data.first at once, then sleeps in the real time provider for the
// instance's `sleep` (a new value replaces the sleep, so an update sleeps again); terraform's
// SIGINT stops the sleep.
const cancelTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "terraform_data" "first" {
  input = {{ quote .Params.greeting }}
}
resource "time_sleep" "wait" {
  create_duration = {{ quote .Params.sleep }}
  triggers        = { sleep = {{ quote .Params.sleep }} }
}
resource "terraform_data" "after" {
  depends_on = [time_sleep.wait]
  input      = "done"
}
`

const cancelSchema = brokenSchema + `  - name: sleep
    type: string
    required: true
`

// useTimeMirror serves the real hashicorp/time through a filesystem mirror named by terraform's
// own TF_CLI_CONFIG_FILE, which the worker's terraform gets, and binds the mirror into its
// sandbox (binds are read at the worker's start: call it before the env). binds are more paths
// terraform may write.
func useTimeMirror(t *testing.T, binds ...string) {
	t.Helper()
	mirror := tfmirror.Layout(t, tfmirror.Time())
	t.Setenv("TF_CLI_CONFIG_FILE", mirror.ConfigFile)
	t.Setenv(terraform.EnvSandboxBinds, strings.Join(append(binds, mirror.Dir), ","))
}

// pushSleepy adds the sleepy stack, served the real hashicorp/time through the mirror useTimeMirror lays out.
func pushSleepy(t *testing.T, e *testsuite.Env) {
	t.Helper()
	testsuite.PushFiles(t, e.GitOpsRepo, "add the sleepy stack", map[string][]byte{
		"stacks/sleepy/schema.yaml":             []byte(cancelSchema),
		"stacks/sleepy/terraform/main.tf.tmpl":  []byte(fmt.Sprintf(cancelTF, tfmirror.TimeVersion)),
		"stacks/sleepy/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
}

func sleepyConfig(t *testing.T, sleep string) string {
	return writeFile(t, "stack: sleepy\nparameters:\n  greeting: hello\n  sleep: "+sleep+"\n")
}

// startMidApply sends args (a deploy) without waiting and returns once its apply step runs and
// terraform has had a moment to finish terraform_data.first: the sleep after it lasts minutes.
func startMidApply(t *testing.T, e *testsuite.Env, ref string, args ...string) {
	t.Helper()
	done := make(chan testsuite.Result, 1)
	go func() { done <- e.CLI(args...) }()
	t.Cleanup(func() { <-done })
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status(ref)
		op := st.Operation
		return op != nil && op.Result == contract.ResultRunning && op.Step == contract.TFApply
	}, 3*time.Minute, 200*time.Millisecond, "the apply never started: %+v", st.Operation)
	time.Sleep(3 * time.Second) // terraform_data.first is created within this; the sleep of minutes is not
}

// slipway cancel stops a deploy mid-apply on the real terraform and the real time provider:
// terraform saves what it finished, the lock is released, the instance is DeploymentFailed with
// a leftover naming where it stopped, and a destroy from DeploymentFailed tears it down. A cancel
// with nothing running is bad input (exit 2) naming the instance.
func TestCancelStopsARunningDeployMidApply(t *testing.T) {
	useTimeMirror(t)
	e := testsuite.NewEnv(t)
	pushSleepy(t, e)
	ref := contract.Ref{Tenant: "cancel", Name: "slow"}
	e.MustCLI(0, "create", "cancel/slow", "-f", sleepyConfig(t, "5m"), "--wait")

	r := e.MustCLI(2, "cancel", "cancel/slow", "--reason", "nothing to stop")
	require.Contains(t, r.Stderr, "cancel/slow: nothing is running (the instance is ConfigurationCreated)")
	require.Equal(t, lifecycle.ConfigurationCreated, e.Status("cancel/slow").State, "nothing changed")

	startMidApply(t, e, "cancel/slow", "deploy", "cancel/slow", "--wait")
	out := e.MustCLI(0, "cancel", "cancel/slow", "--reason", "wrong window")
	require.Contains(t, out.Stdout, "cancel/slow: stopping deploy")
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status("cancel/slow")
		return st.State == lifecycle.DeploymentFailed
	}, 2*time.Minute, 200*time.Millisecond, "state %s", st.State)
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.TFApply, st.Failure.Step)
	require.Equal(t, contract.ErrCancelled, st.Failure.Type, "%+v", st.Failure)
	require.Contains(t, st.Failure.Error, "cancelled by ")
	require.Contains(t, st.Failure.Error, "(wrong window) at step "+contract.TFApply)
	require.NotNil(t, st.Operation.Cancel)
	require.Equal(t, "wrong window", st.Operation.Cancel.Reason)
	var where *contract.Leftover
	for i, l := range st.Failure.Leftovers {
		require.NotEqual(t, contract.LeftoverLock, l.Kind, "the interrupted terraform released its lock: %+v", l)
		if l.Kind == contract.LeftoverCancelled {
			where = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, where, "leftovers: %+v", st.Failure.Leftovers)
	require.Equal(t, contract.TFApply, where.ID)
	require.Contains(t, where.Detail, "deploy was cancelled at step "+contract.TFApply)
	require.NoError(t, lockFree(t, e, ref))
	var addrs []string
	for _, res := range e.Resources(ref) {
		require.False(t, res.Tainted, "%s tainted by the interrupt", res.Address)
		addrs = append(addrs, res.Address)
	}
	require.Equal(t, []string{"terraform_data.first"}, addrs, "what terraform finished before the cancel is in the state")
	require.Empty(t, terraformProcesses(t, e.StateDir), "nothing of the interrupted terraform is left running")
	s := step(t, st, contract.TFApply)
	t.Logf("cancel: apply step ended %v after the cancel, %v after it started (the sleep was 5m)",
		s.EndedAt.Sub(st.Operation.Cancel.At).Round(time.Millisecond), s.EndedAt.Sub(s.StartedAt).Round(time.Millisecond))

	// A second cancel finds nothing running; destroy is allowed from DeploymentFailed.
	r = e.MustCLI(2, "cancel", "cancel/slow")
	require.Contains(t, r.Stderr, "nothing is running (the instance is DeploymentFailed)")
	out = e.MustCLI(0, "destroy", "cancel/slow", "--wait")
	require.Contains(t, out.Stdout, "cancel/slow is Destroyed")
	require.Empty(t, e.Resources(ref), "destroy tore down what the state held")
	require.NoError(t, lockFree(t, e, ref))
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "cancel-running")
}

// A destroy sent while a deploy applies is accepted (EMCO's terminate while instantiating): the
// instance shows PreTerminate, the deploy is stopped at a safe point, then the teardown runs, on
// the real ArgoCD: Destroyed, the infrastructure and the app gone.
func TestDestroyDuringADeployPreTerminates(t *testing.T) {
	stack := cluster.Start(t)
	useTimeMirror(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	pushSleepy(t, e)
	ref := contract.Ref{Tenant: "pre", Name: "term"}
	e.MustCLI(0, "create", "pre/term", "-f", sleepyConfig(t, "1s"), "--wait")
	e.MustCLI(0, "deploy", "pre/term", "--wait")
	require.Equal(t, http.StatusOK, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/pre-term"))

	// The update replaces the sleep with a 2m one; the destroy comes while it sleeps.
	startMidApply(t, e, "pre/term", "deploy", "pre/term", "-f", sleepyConfig(t, "2m"), "--wait")
	out := e.MustCLI(0, "destroy", "pre/term", "--wait")
	require.Contains(t, out.Stdout, "pre/term is Destroyed")

	st := e.Status("pre/term")
	require.Equal(t, lifecycle.Destroyed, st.State)
	var deploy *contract.OperationStatus
	for i, op := range st.History {
		if op.Kind == lifecycle.OpDeploy && op.Cancel != nil {
			deploy = &st.History[i]
		}
	}
	require.NotNil(t, deploy, "the stopped deploy is in the history: %+v", st.History)
	require.Equal(t, lifecycle.OpDestroy, deploy.Cancel.For)
	require.Equal(t, contract.ResultFailed, deploy.Result, "its merge had changed main")
	require.NotEmpty(t, deploy.Cancel.Actor, "the verified actor who asked")
	require.Contains(t, preTerminateStates(t, e, contract.InstanceWorkflowID(ref)), string(lifecycle.PreTerminate))
	require.Empty(t, e.Resources(ref), "the teardown destroyed what the stopped apply had left in the state")
	require.NoError(t, lockFree(t, e, ref))
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/pre-term"),
		"the app is gone from ArgoCD")
	require.Empty(t, terraformProcesses(t, e.StateDir))
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "cancel-running-preterminate")
}

// preTerminateStates lists the InstanceState values the entity upserted, in order, from its
// Temporal history: a state held only for seconds is there even when no status read caught it.
func preTerminateStates(t *testing.T, e *testsuite.Env, id string) []string {
	t.Helper()
	var states []string
	it := e.Client.Temporal.GetWorkflowHistory(t.Context(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		a := ev.GetUpsertWorkflowSearchAttributesEventAttributes()
		if a == nil {
			continue
		}
		if p, ok := a.GetSearchAttributes().GetIndexedFields()["InstanceState"]; ok {
			states = append(states, strings.Trim(string(p.GetData()), `"`))
		}
	}
	return states
}

// The attack: a person outside the tenant tries to stop its running deploy through the server.
// The policy refuses the cancel (exit 3) and the deploy goes on; the tenant's member stops it.
func TestCancelOfARunningDeployIsDecidedByThePolicy(t *testing.T) {
	useTimeMirror(t)
	w := newPeople(t)
	e := w.e
	pushSleepy(t, e)
	e.MustCLI(0, "create", "acme/slow", "-f", sleepyConfig(t, "5m"), "--wait")
	startMidApply(t, e, "acme/slow", "deploy", "acme/slow", "--wait")

	r := w.as(w.bob, 3, "cancel", "acme/slow", "--reason", "sabotage")
	require.Contains(t, r.Stderr, "denied by policy")
	require.Contains(t, r.Stderr, "tenant acme")
	st := e.Status("acme/slow")
	require.Equal(t, lifecycle.Deploying, st.State, "the deploy goes on")
	require.Equal(t, contract.ResultRunning, st.Operation.Result)
	require.Nil(t, st.Operation.Cancel, "no stop was recorded")

	out := w.as(w.alice, 0, "cancel", "acme/slow", "--reason", "wrong window")
	require.Contains(t, out.Stdout, "acme/slow: stopping deploy")
	require.Eventually(t, func() bool {
		st = e.Status("acme/slow")
		return st.State == lifecycle.DeploymentFailed
	}, 2*time.Minute, 200*time.Millisecond, "state %s", st.State)
	require.Contains(t, st.Failure.Error, "cancelled by ")
	require.Contains(t, st.Failure.Error, "alice")
}
