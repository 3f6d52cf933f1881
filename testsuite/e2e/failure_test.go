package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

const brokenSchema = `parameters:
  - name: greeting
    type: string
    required: true
`

// brokenTF fails on apply, not on plan: the provisioner runs only when the resource is created.
const brokenTF = `resource "terraform_data" "app" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command = "echo provisioning failed >&2; exit 3"
  }
}
`

const fixedTF = `resource "terraform_data" "app" {
  input = "hello"
}
`

const brokenManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Name }}
  namespace: {{ .Namespace }}
data:
  greeting: {{ .Params.greeting }}
`

func TestFailedApplyThenFixAndRetry(t *testing.T) {
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	testsuite.PushFiles(t, repo, "add the broken stack", map[string][]byte{
		"stacks/broken/schema.yaml":             []byte(brokenSchema),
		"stacks/broken/terraform/main.tf.tmpl":  []byte(brokenTF),
		"stacks/broken/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	file := writeFile(t, "stack: broken\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "acme/bad", "-f", file, "--wait")

	out := e.MustCLI(1, "deploy", "acme/bad", "--wait")
	require.Contains(t, out.Stdout, "acme/bad is DeploymentFailed")
	require.Contains(t, out.Stdout, "leftovers:")
	st := e.Status("acme/bad")
	require.Equal(t, lifecycle.DeploymentFailed, st.State)
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.TFApply, st.Failure.Step)
	require.Contains(t, st.Failure.Error, "provisioning failed")
	var partial *contract.Leftover
	for i, l := range st.Failure.Leftovers {
		if l.Kind == "terraform-state" {
			partial = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, partial, "leftovers: %+v", st.Failure.Leftovers)
	require.Contains(t, partial.Detail, "terraform_data.app (tainted)")
	res := e.Resources(contract.Ref{Tenant: "acme", Name: "bad"})
	require.Len(t, res, 1)
	require.True(t, res[0].Tainted, "the real state holds the half-created resource")

	// Nothing else is allowed until an operator decides.
	e.MustCLI(2, "archive", "acme/bad")

	// The operator fixes the rendered template on main by hand. main no longer holds what slipway
	// rendered, so a retry runs nothing from it until the operator accepts the reviewed fix.
	testsuite.PushFiles(t, repo, "fix the provisioner", map[string][]byte{
		"instances/acme/bad/terraform/main.tf": []byte(fixedTF),
	})
	fix := testsuite.Git(t, repo, "rev-parse", "main")
	out = e.MustCLI(1, "retry", "acme/bad", "--wait")
	require.Contains(t, out.Stdout, "acme/bad is DeploymentFailed")
	st = e.Status("acme/bad")
	require.Equal(t, contract.VerifyRender, st.Failure.Step)
	require.Contains(t, st.Failure.Error, "changed terraform/main.tf; by commit "+fix[:12])
	out = e.MustCLI(0, "resolve", "acme/bad", "--accept-render", "--reason", "hand fix of the provisioner, reviewed")
	require.Contains(t, out.Stdout, "acme/bad is Deployed")
	st = e.Status("acme/bad")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, 3, st.Operation.Attempt)
	require.Equal(t, lifecycle.DecisionRetry, st.Decisions[0].Decision)
	require.Equal(t, "e2e", st.Decisions[0].Actor)
	require.Equal(t, lifecycle.DecisionResolve, st.Decisions[1].Decision)
	require.Equal(t, fix, st.Decisions[1].AcceptedRender)
	require.Equal(t, []string{"terraform/main.tf"}, st.Decisions[1].AcceptedFiles, "the decision names the files it accepted")
	require.Contains(t, st.Decisions[1].AcceptedDiff, "+++ b/instances/acme/bad/terraform/main.tf\n", "and records their diff")
	require.Contains(t, st.Decisions[1].AcceptedDiff, "\n-    command = \"echo provisioning failed >&2; exit 3\"\n")
	res = e.Resources(contract.Ref{Tenant: "acme", Name: "bad"})
	require.Len(t, res, 1)
	require.False(t, res[0].Tainted)

	branches := testsuite.Branches(t, repo, "slipway/acme/bad/")
	require.Len(t, branches, 1, "only the create MR: the retry opened none")
	require.True(t, strings.Contains(branches[0], "/provision-"), branches[0])
	require.Equal(t, 1, testsuite.Merges(t, repo, "instances/acme/bad"))
}
