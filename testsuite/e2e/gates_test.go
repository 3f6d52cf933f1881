package e2e

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// Scheduling gates on the real stack (git, terraform, ArgoCD): a gate from the instance file
// holds the provision durably and visibly until it is removed; a gated deploy can be cancelled
// with nothing done; a gate's timeout fails the deploy with no leftovers; the built-in gate
// instance:T/N clears itself when that instance becomes Ready; an unknown kind is refused.
func TestSchedulingGatesHoldProvisionsAndDeploys(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	gated := writeFile(t, "stack: example\nparameters:\n  greeting: hello\nschedulingGates: [network]\n")
	e.MustCLI(0, "create", "gate/web", "-f", gated)
	waiting := func(ref string) bool { return e.Status(ref).Waiting != nil }
	require.Eventually(t, func() bool { return waiting("gate/web") }, 30*time.Second, 50*time.Millisecond)

	st := e.Status("gate/web")
	require.Equal(t, lifecycle.NoConfiguration, st.State, "the state stays while gated")
	sched := conditionOf(st.Conditions, contract.CondScheduled)
	require.Equal(t, lifecycle.ConditionFalse, sched.Status)
	require.Equal(t, "SchedulingGated", sched.Reason)
	require.Contains(t, sched.Message, "network")
	require.Contains(t, e.MustCLI(0, "list", "--gated").Stdout, "gate/web")
	require.Contains(t, e.MustCLI(0, "gate", "list", "gate/web").Stdout, "provision waiting since")
	busy := e.MustCLI(2, "deploy", "gate/web")
	require.Contains(t, busy.Stderr, "provision waiting at scheduling gates (network)")
	// The workflow's own validator, which a request that skips the CLI meets, says the same.
	_, err := e.Client.Submit(t.Context(), contract.Ref{Tenant: "gate", Name: "web"}, lifecycle.OpDeploy, contract.OperationRequest{}, "")
	var rejected *client.RejectedError
	require.True(t, errors.As(err, &rejected), "got %v", err)
	require.True(t, rejected.Busy)
	require.Contains(t, rejected.Error(), "remove the gates, or slipway cancel gate/web")
	require.Contains(t, busy.Stderr, "error: "+rejected.Error()+"\n", "the CLI's refusal is the workflow's, word for word")
	require.Zero(t, testsuite.Merges(t, e.GitOpsRepo, "instances/gate/web"), "nothing reached the repo while gated")

	start := time.Now()
	e.MustCLI(0, "gate", "remove", "gate/web", "network", "--reason", "network is up")
	require.Eventually(t, func() bool { return e.Status("gate/web").State == lifecycle.ConfigurationCreated }, 30*time.Second, 20*time.Millisecond)
	t.Logf("gate removed to provisioned: %s", time.Since(start).Round(time.Millisecond))
	require.Nil(t, conditionOrNil(e.Status("gate/web").Conditions, contract.CondScheduled), "no gates, no Scheduled=False")

	// A gated deploy is cancelled: nothing is done and the state is as it was.
	e.MustCLI(0, "gate", "add", "gate/web", "hold", "--reason", "freeze")
	e.MustCLI(0, "deploy", "gate/web")
	require.Eventually(t, func() bool { return waiting("gate/web") }, 30*time.Second, 50*time.Millisecond)
	e.MustCLI(0, "cancel", "gate/web", "--reason", "not today")
	require.Eventually(t, func() bool { return !waiting("gate/web") }, 30*time.Second, 50*time.Millisecond)
	st = e.Status("gate/web")
	require.Equal(t, lifecycle.ConfigurationCreated, st.State)
	require.Equal(t, contract.ResultCancelled, st.Operation.Result)
	require.Empty(t, st.Operation.Steps, "no pipeline ran")

	// A gate that times out fails the deploy with no leftovers.
	e.MustCLI(0, "gate", "remove", "gate/web", "hold")
	e.MustCLI(0, "gate", "add", "gate/web", "slow", "--timeout", "2s")
	out := e.MustCLI(1, "deploy", "gate/web", "--wait")
	require.Contains(t, out.Stdout, "DeploymentFailed")
	st = e.Status("gate/web")
	require.Equal(t, "scheduling-gate", st.Failure.Step)
	require.Contains(t, st.Failure.Error, "slow (timeout 2s)")
	require.Empty(t, st.Failure.Leftovers)
	e.MustCLI(0, "resolve", "gate/web", "--reason", "gate timed out; nothing to clean")
	e.MustCLI(0, "gate", "remove", "gate/web", "slow")

	// instance:gate/db clears when gate/db is Ready.
	bad := e.CLI("gate", "add", "gate/web", "dns:gate/db")
	require.Equal(t, 2, bad.Code)
	require.Contains(t, bad.Stderr, `unknown gate kind "dns"`)
	e.MustCLI(0, "gate", "add", "gate/web", "instance:gate/db")
	e.MustCLI(0, "deploy", "gate/web")
	require.Eventually(t, func() bool { return waiting("gate/web") }, 30*time.Second, 50*time.Millisecond)
	e.MustCLI(0, "create", "gate/db", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: db\n"), "--wait")
	require.True(t, waiting("gate/web"), "db is not Ready yet")
	e.MustCLI(0, "deploy", "gate/db", "--wait")
	require.Eventually(t, func() bool { return e.Status("gate/web").State == lifecycle.Deployed }, time.Minute, 100*time.Millisecond)
	st = e.Status("gate/web")
	require.Empty(t, st.Gates)
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady))
	log := e.MustCLI(0, "status", "gate/web", "-o", "all", "--json").Stdout
	require.Contains(t, log, `"action": "cleared"`)
	events := e.MustCLI(0, "events", "gate/web").Stdout
	for _, line := range []string{"gate-remove network requested by", "gate-remove done; gates now: -", "cancel requested by",
		"gate instance:gate/db cleared: instance/gate/db is Ready", "provision succeeded"} {
		require.Contains(t, events, line)
	}
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "gate", Name: "web"}), "gates-signal-inline")

	// A rollout skips a gated instance rather than wait at its gates with the batch.
	e.MustCLI(0, "gate", "add", "gate/web", "freeze")
	require.Eventually(t, func() bool {
		plan := e.MustCLI(0, "rollout", "plan", "--stack", "example", "--tenant", "gate", "--set", "replicas=2").Stdout
		return regexp.MustCompile(`gate/web\s+Deployed\s+-\s+-\s+skip: gated`).MatchString(plan)
	}, 10*time.Second, 200*time.Millisecond)
}

func conditionOf(cs []lifecycle.Condition, typ string) lifecycle.Condition {
	if c := conditionOrNil(cs, typ); c != nil {
		return *c
	}
	return lifecycle.Condition{}
}

func conditionOrNil(cs []lifecycle.Condition, typ string) *lifecycle.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}
