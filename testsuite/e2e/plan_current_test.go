package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// A stack template change on main shows in both halves of a plain plan (the config diff and the
// terraform plan come from one render), attribute by attribute with the sensitive value masked
// and the replace flagged as possible data loss; a plain deploy merges that render and applies it.
func TestPlanAndPlainDeployUseTheStackOnMain(t *testing.T) {
	e := testsuite.NewEnv(t)
	ref := contract.Ref{Tenant: "cur", Name: "web"}
	dir := "instances/cur/web"
	e.MustCLI(0, "create", ref.String(), "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref.String(), "--wait")
	require.Equal(t, 1, testsuite.Merges(t, e.GitOpsRepo, dir))

	// The stack on main now replaces the app and adds a resource holding a sensitive value that
	// is in no file (terraform computes it), so finding it anywhere is a leak.
	const salt = "plan-current-stack-salt"
	sum := sha256.Sum256([]byte(salt))
	secret := hex.EncodeToString(sum[:])
	tmpl := filepath.Join("..", "..", "examples", "stacks", "example", "terraform", "main.tf.tmpl")
	data, err := os.ReadFile(tmpl)
	require.NoError(t, err)
	changed := strings.Replace(string(data), `resource "terraform_data" "app" {`,
		"resource \"terraform_data\" \"app\" {\n  triggers_replace = \"v2\"", 1) + `
resource "terraform_data" "token" {
  input = { token = sensitive(sha256("` + salt + `")), plain = "visible" }
}
`
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: replace the app, add a token", map[string][]byte{
		"stacks/example/terraform/main.tf.tmpl": []byte(changed)})

	out := e.MustCLI(0, "plan", ref.String())
	t.Log(out.Stdout)
	require.Contains(t, out.Stdout, "2 to add, 0 to change, 1 to destroy", "terraform plans main's stack: the app replaced, the token added")
	require.Regexp(t, `\[(delete create|create delete)\] terraform_data\.app`, out.Stdout)
	require.Contains(t, out.Stdout, `triggers_replace: null -> "v2"`)
	require.Contains(t, out.Stdout, "[create] terraform_data.token")
	require.Contains(t, out.Stdout, "input.token: null -> (sensitive value)")
	require.Contains(t, out.Stdout, `input.plain: null -> "visible"`)
	require.Contains(t, out.Stdout, "possible data loss: 1 resource(s) deleted or replaced, and the data they hold with them: terraform_data.app")
	require.Contains(t, out.Stdout, `+  triggers_replace = "v2"`, "the config diff shows the same change")
	require.Contains(t, out.Stdout, `+resource "terraform_data" "token" {`)
	require.NotContains(t, out.Stdout, secret)

	out = e.MustCLI(0, "plan", ref.String(), "-o", "json")
	require.NotContains(t, out.Stdout, secret)
	var plan contract.OperationResult
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &plan))
	require.Equal(t, []string{"terraform_data.app"}, plan.Plan.DataLoss)
	require.Contains(t, plan.Diff, "triggers_replace")
	var token contract.AttributeChange
	for _, rc := range plan.Plan.Resources {
		for _, a := range rc.Attributes {
			if rc.Address == "terraform_data.token" && a.Path == "input.token" {
				token = a
			}
		}
	}
	require.Equal(t, contract.AttributeChange{Path: "input.token", Before: "null", After: "(sensitive value)", Sensitive: true}, token)
	require.Equal(t, 1, testsuite.Merges(t, e.GitOpsRepo, dir), "plan changes nothing")

	// A plain deploy merges the same render and applies it.
	e.MustCLI(0, "deploy", ref.String(), "--wait")
	st := e.Status(ref.String())
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, 2, testsuite.Merges(t, e.GitOpsRepo, dir), "the plain deploy merged main's stack render")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:"+dir+"/terraform/main.tf"), `triggers_replace = "v2"`)
	var addrs []string
	for _, r := range e.Resources(ref) {
		addrs = append(addrs, r.Address)
	}
	require.Contains(t, addrs, "terraform_data.token", "the stack change was applied")
	require.Equal(t, []string{"terraform_data.app"}, st.Operation.Plan.DataLoss)

	out = e.MustCLI(0, "plan", ref.String())
	require.Contains(t, out.Stdout, "terraform: no changes")
	require.Contains(t, out.Stdout, "config: no changes")
	require.Empty(t, e.SecretLeaks(t, []string{secret}), "the sensitive value is in no history, file or log")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "plan-current-stack")
}
