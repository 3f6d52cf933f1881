package e2e

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

const outputsSchema = `description: a stack with outputs for the app
parameters:
  - {name: greeting, type: string, required: true}
outputs:
  secret: [db_password, api_token]
`

// The evil output tries to add a ClusterRole document to the manifest it is written into;
// api_token is sensitive and known at plan time, so the plan holds it too.
const outputsTF = `locals {
  greeting = {{ quote .Params.greeting }}
}

resource "terraform_data" "db" {
  input = local.greeting
}

output "api_token" {
  value     = "tok-${md5("static-${local.greeting}")}"
  sensitive = true
}

output "db_host" {
  value = "${terraform_data.db.output}.db.internal"
}

output "db_password" {
  value     = "pw-${md5(terraform_data.db.output)}"
  sensitive = true
}

output "evil" {
  value = "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: pwned-${terraform_data.db.output}\n"
}
`

const outputsManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: {{ .Namespace }}
data:
  host: {{ .Outputs.db_host }}
  evil: {{ .Outputs.evil }}
`

// Terraform outputs where users need them, on real terraform, git, ArgoCD and kube-apiserver:
// status shows the non-sensitive ones and masks the sensitive one; the manifest in git at the
// deployed revision and the ConfigMap in the cluster carry the output's value (an output that
// tries to inject a ClusterRole stays one string); the sensitive value is only in the instance's
// Secret, never in a history, git, the worker's log or status; an update re-renders.
func TestOutputsReachStatusManifestsAndSecret(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	testsuite.PushFiles(t, e.GitOpsRepo, "add a stack with outputs", map[string][]byte{
		"stacks/outs/schema.yaml":             []byte(outputsSchema),
		"stacks/outs/terraform/main.tf.tmpl":  []byte(outputsTF),
		"stacks/outs/manifests/app.yaml.tmpl": []byte(outputsManifest),
	})
	ref, ns := contract.Ref{Tenant: "outs", Name: "web"}, "outs-web"
	password := func(greeting string) string {
		sum := md5.Sum([]byte(greeting))
		return "pw-" + hex.EncodeToString(sum[:])
	}
	token := func(greeting string) string {
		sum := md5.Sum([]byte("static-" + greeting))
		return "tok-" + hex.EncodeToString(sum[:])
	}
	evil := func(greeting string) string {
		return "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: pwned-" + greeting + "\n"
	}
	e.MustCLI(0, "create", "outs/web", "-f", writeFile(t, "stack: outs\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "outs/web", "--wait")

	check := func(greeting string) contract.Status {
		t.Helper()
		st := e.Status("outs/web")
		require.Equal(t, lifecycle.Deployed, st.State, "%+v", st.Failure)
		require.Equal(t, greeting+".db.internal", st.Outputs["db_host"])
		require.Equal(t, "[sensitive]", st.Outputs["db_password"], "status names the sensitive output, never its value")
		require.Equal(t, evil(greeting), st.Outputs["evil"])

		text := e.MustCLI(0, "status", "outs/web").Stdout
		require.Contains(t, text, "outputs:\n")
		require.Contains(t, text, `  db_host = "`+greeting+`.db.internal"`)
		require.Contains(t, text, `  db_password = "[sensitive]"`)
		js := e.MustCLI(0, "status", "outs/web", "-o", "json").Stdout
		var raw struct{ Outputs map[string]string }
		require.NoError(t, json.Unmarshal([]byte(js), &raw))
		require.Equal(t, st.Outputs, raw.Outputs)
		require.NotContains(t, text+js, password(greeting))

		// git at the revision ArgoCD synced holds the rendered output; the cluster has it too.
		manifest := testsuite.Git(t, e.GitOpsRepo, "show", st.Deployed+":instances/outs/web/manifests/app.yaml")
		require.Contains(t, manifest, `host: "`+greeting+`.db.internal"`)
		cm := configMap(t, stack, ns)
		require.Equal(t, greeting+".db.internal", cm["host"])
		require.Equal(t, evil(greeting), cm["evil"], "the injection attempt stays one string value")
		require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/rbac.authorization.k8s.io/v1/clusterroles/pwned-"+greeting))
		secret := secretData(t, stack, ns)
		require.Equal(t, password(greeting), secret["db_password"], "the sensitive output is in the instance's Secret")
		require.Equal(t, token(greeting), secret["api_token"])
		require.Equal(t, "[sensitive]", st.Outputs["api_token"])
		require.NotContains(t, text+js, token(greeting))
		return st
	}
	first := check("hello")
	require.Contains(t, stepDetail(first, contract.RenderOutputs), "merged as", "the first deploy renders the outputs in a merge of its own")

	// An update changes the output: its MR renders with the outputs on main, the apply's are rendered after it.
	e.MustCLI(0, "deploy", "outs/web", "-f", writeFile(t, "stack: outs\nparameters:\n  greeting: world\n"), "--wait")
	second := check("world")
	require.NotEqual(t, first.Deployed, second.Deployed)

	// A deploy of main as it is: verify-render accepts slipway's own outputs merge, and nothing changes.
	e.MustCLI(0, "deploy", "outs/web", "--wait")
	third := check("world")
	require.Contains(t, stepDetail(third, contract.RenderOutputs), "nothing to render")
	require.Contains(t, stepDetail(third, contract.VerifyRender), "as rendered at merge")

	require.Empty(t, e.SecretLeaks(t, []string{password("hello"), password("world"), token("hello"), token("world")}),
		"the sensitive output's values are in no history, git, worker log")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "render-outputs")
}

// stepDetail is the detail of the named step of the last operation.
func stepDetail(st contract.Status, name string) string {
	if st.Operation == nil {
		return ""
	}
	var out []string
	for _, s := range st.Operation.Steps {
		if s.Name == name {
			out = append(out, s.Status+": "+s.Detail)
		}
	}
	return strings.Join(out, "; ")
}

// A stack's outputs: that no template or Secret can use is refused at create, exit 2 naming the field.
func TestOutputsBadStackRefused(t *testing.T) {
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "add stacks with bad outputs", map[string][]byte{
		"stacks/undeclared/schema.yaml":             []byte(strings.Replace(outputsSchema, "[db_password,", "[db_pasword,", 1)),
		"stacks/undeclared/terraform/main.tf.tmpl":  []byte(outputsTF),
		"stacks/undeclared/manifests/app.yaml.tmpl": []byte(outputsManifest),
		"stacks/typo/schema.yaml":                   []byte(outputsSchema),
		"stacks/typo/terraform/main.tf.tmpl":        []byte(outputsTF),
		"stacks/typo/manifests/app.yaml.tmpl":       []byte(strings.Replace(outputsManifest, ".Outputs.db_host", ".Outputs.db_hots", 1)),
		"stacks/intf/schema.yaml":                   []byte(outputsSchema),
		"stacks/intf/terraform/main.tf.tmpl":        []byte(outputsTF + "# {{ .Outputs.db_host }}\n"),
	})
	for stack, msg := range map[string]string{
		"undeclared": `schema.outputs.secret[0]: the stack's terraform declares no output "db_pasword"`,
		"typo":       `manifests/app.yaml.tmpl: .Outputs.db_hots: the stack's terraform declares no output "db_hots"`,
		"intf":       "terraform/main.tf.tmpl: .Outputs is only for templates under manifests/",
	} {
		r := e.MustCLI(2, "create", "bad/"+stack, "-f", writeFile(t, "stack: "+stack+"\nparameters:\n  greeting: hello\n"), "--wait")
		require.Contains(t, r.Stderr, msg, stack)
		require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/bad/"+stack), "nothing merged")
	}
}
