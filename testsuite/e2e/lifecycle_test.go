package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

const instanceDir = "instances/acme/web"

var web = contract.Ref{Tenant: "acme", Name: "web"}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "instance.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// The whole lifecycle from the CLI, checking state, git and terraform after each step.
func TestLifecycleEndToEnd(t *testing.T) {
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	// The greeting travels in payloads (the request's config), so the leak search must find it decoded.
	v1 := writeFile(t, "stack: example\nparameters:\n  greeting: "+payloadMarker+"\n  replicas: 1\n")
	v2 := writeFile(t, "stack: example\nparameters:\n  greeting: "+payloadMarker+"\n  replicas: 2\n")

	out := e.MustCLI(0, "create", "acme/web", "-f", v1, "--wait")
	require.Contains(t, out.Stdout, "acme/web is ConfigurationCreated")
	require.Contains(t, out.Stdout, contract.MergeMR)
	require.Equal(t, lifecycle.ConfigurationCreated, e.Status("acme/web").State)
	require.Equal(t, 1, testsuite.Merges(t, repo, instanceDir))
	require.NotEmpty(t, testsuite.Git(t, repo, "ls-tree", "--name-only", "main", instanceDir+"/terraform/"))
	require.Empty(t, e.Resources(web))

	e.MustCLI(0, "deploy", "acme/web", "--wait")
	st := e.Status("acme/web")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, "none", st.Deployer)
	infra := e.Resources(web)
	require.NotEmpty(t, infra)
	require.Equal(t, 1, testsuite.Merges(t, repo, instanceDir), "a deploy without -f merges nothing")
	require.Len(t, st.Infrastructure, len(infra))
	secrets, err := e.Activities.Secrets.Get(t.Context(), web.Tenant, web.Name)
	require.NoError(t, err)
	require.Len(t, secrets, 2, "the first deploy bootstrapped the stack's secrets")
	out = e.MustCLI(0, "secrets", "acme/web", "--state-dir", e.StateDir)
	require.Equal(t, secretLines(secrets), out.Stdout, "an operator who can read the store sees them")
	require.Contains(t, out.Stderr, "secrets of acme/web read by e2e")

	out = e.MustCLI(0, "plan", "acme/web", "--json")
	var plan contract.OperationResult
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &plan))
	require.True(t, plan.Plan.NoChanges, "%+v", plan.Plan)
	require.Empty(t, plan.Diff)
	require.Equal(t, lifecycle.Deployed, plan.State)

	out = e.MustCLI(0, "plan", "acme/web", "-f", v2)
	require.Contains(t, out.Stdout, "0 to add, 1 to change, 0 to destroy")
	require.Contains(t, out.Stdout, "+  replicas: 2")
	require.Equal(t, 1, testsuite.Merges(t, repo, instanceDir), "plan changes nothing")

	e.MustCLI(0, "deploy", "acme/web", "-f", v2, "--wait")
	st = e.Status("acme/web")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, 1, st.Operation.Plan.Change)
	require.Equal(t, 2, testsuite.Merges(t, repo, instanceDir), "one merge per config change")
	require.Contains(t, testsuite.Git(t, repo, "show", "main:"+instanceDir+"/instance.yaml"), "replicas: 2")

	e.MustCLI(0, "archive", "acme/web", "--wait")
	require.Equal(t, lifecycle.Archived, e.Status("acme/web").State)
	require.Len(t, e.Resources(web), len(infra), "archive keeps the infrastructure")
	require.NotEmpty(t, testsuite.Git(t, repo, "ls-tree", "main", instanceDir+"/instance.yaml"), "archive keeps the config")
	// The repository alone says the instance is archived (issue 39): the archive merged archived: true.
	require.Contains(t, testsuite.Git(t, repo, "show", "main:"+instanceDir+"/instance.yaml"), "\narchived: true")
	require.Equal(t, 3, testsuite.Merges(t, repo, instanceDir), "the archive's config change")

	e.MustCLI(0, "deploy", "acme/web", "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status("acme/web").State)
	require.NotContains(t, testsuite.Git(t, repo, "show", "main:"+instanceDir+"/instance.yaml"), "archived", "the deploy's render clears it")
	require.Equal(t, 4, testsuite.Merges(t, repo, instanceDir))

	e.MustCLI(0, "destroy", "acme/web", "--wait")
	require.Equal(t, lifecycle.Destroyed, e.Status("acme/web").State)
	require.Empty(t, e.Resources(web), "destroy empties the terraform state")
	require.NotEmpty(t, testsuite.Git(t, repo, "ls-tree", "main", instanceDir+"/instance.yaml"), "destroy keeps the config")

	out = e.MustCLI(0, "deprovision", "acme/web", "--yes", "--wait")
	require.Contains(t, out.Stdout, "acme/web is Deprovisioned")
	require.Empty(t, testsuite.Git(t, repo, "ls-tree", "main", instanceDir), "the config is gone from main")
	require.Equal(t, 5, testsuite.Merges(t, repo, instanceDir))
	require.Empty(t, e.Resources(web))
	require.Len(t, testsuite.Branches(t, repo, "slipway/acme/web/"), 5, "create, update, archive, the deploy back, deprovision")
	gone, err := e.Activities.Secrets.Get(t.Context(), web.Tenant, web.Name)
	require.NoError(t, err)
	require.Empty(t, gone, "deprovision deletes the secrets")
	var values []string
	for _, v := range secrets {
		values = append(values, v)
	}
	require.Empty(t, e.SecretLeaks(t, values), "a bootstrapped secret is in plaintext somewhere")
	requireEncrypted(t, e)

	require.Eventually(t, func() bool {
		r := e.CLI("list", "--all", "--tenant", "acme", "--json")
		return r.Code == 0 && json.Valid([]byte(r.Stdout)) && containsState(r.Stdout, "Deprovisioned")
	}, 10*time.Second, 200*time.Millisecond, "list finds the deprovisioned instance by search attributes")
	recordHistories(t, e, web)

	// Deprovisioned is final for that life; the same name can be created again, and
	// its MR branches never collide with the old life's.
	e.MustCLI(0, "create", "acme/web", "-f", v1, "--wait")
	require.Equal(t, lifecycle.ConfigurationCreated, e.Status("acme/web").State)
	require.Len(t, testsuite.Branches(t, repo, "slipway/acme/web/"), 6)
	require.Equal(t, 6, testsuite.Merges(t, repo, instanceDir))
}

const payloadMarker = "hello-codec-marker"

func secretLines(m map[string]string) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + "=" + m[n] + "\n")
	}
	return b.String()
}

// requireEncrypted: every payload the server stores is sealed, of every kind the
// lifecycle produces; and the leak search does find a value that is in them.
func requireEncrypted(t *testing.T, e *testsuite.Env) {
	t.Helper()
	plain, encrypted := e.PlainPayloads(t)
	require.Empty(t, plain, "payloads stored in plaintext")
	t.Logf("encrypted payloads by holder: %v", encrypted)
	for _, holder := range []string{
		"WorkflowExecutionStartedEventAttributes",             // workflow and child inputs as started
		"StartChildWorkflowExecutionInitiatedEventAttributes", // child inputs
		"ActivityTaskScheduledEventAttributes",                // activity inputs
		"ActivityTaskCompletedEventAttributes",                // activity results
		"WorkflowExecutionCompletedEventAttributes",           // pipeline results
		"ChildWorkflowExecutionCompletedEventAttributes",      // child results
		"Header", // a step's start, which its first activity's worker sends to the instance
		"WorkflowExecutionSignaledEventAttributes", // signals the entity receives
		"Input",   // update arguments
		"Outcome", // update results
	} {
		require.Positive(t, encrypted[holder], "no encrypted payloads in %s: %v", holder, encrypted)
	}
	require.NotEmpty(t, e.WorkerLog(), "the worker's log is captured, so searching it means something")
	hits := e.SecretLeaks(t, []string{payloadMarker})
	t.Logf("%s found in: %v", payloadMarker, hits)
	require.Contains(t, hits, "history "+contract.InstanceWorkflowID(web)+" "+testsuite.LeakDecoded,
		"the search finds a value that is in the payloads once they are decoded")
	for _, h := range hits {
		require.NotContains(t, h, testsuite.LeakRaw, "%s is in plaintext in the raw history", payloadMarker)
	}
}

func containsState(listJSON, state string) bool {
	var items []struct{ Name, State string }
	if json.Unmarshal([]byte(listJSON), &items) != nil {
		return false
	}
	for _, it := range items {
		if it.Name == "web" && it.State == state {
			return true
		}
	}
	return false
}

func recordHistories(t *testing.T, e *testsuite.Env, ref contract.Ref) {
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "lifecycle")
}
