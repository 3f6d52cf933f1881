package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// guardedStack is a stack whose `generation` parameter replaces terraform_data.app (a
// destructive change) and whose other parameters update in place; extra is added to its schema.
func guardedStack(name, extra string, files map[string]string) map[string][]byte {
	dir := "stacks/" + name + "/"
	out := map[string][]byte{
		dir + "schema.yaml": []byte(`description: a stack with lifecycle controls, for the e2e tests
parameters:
  - name: greeting
    type: string
    required: true
  - name: generation
    type: int
    default: 1
  - name: mode
    type: string
    default: normal
` + extra),
		dir + "terraform/main.tf.tmpl": []byte(`resource "terraform_data" "app" {
  input            = { greeting = {{ quote .Params.greeting }} }
  triggers_replace = { generation = {{ .Params.generation }} }
}

output "mode" {
  value = {{ quote .Params.mode }}
}

output "greeting" {
  value = terraform_data.app.output.greeting
}
`),
		dir + "manifests/app.yaml.tmpl": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: {{ .Namespace }}
data:
  greeting: {{ toJSON .Params.greeting }}
  generation: {{ toJSON (print .Params.generation) }}
`),
	}
	for p, body := range files {
		out[dir+p] = []byte(body)
	}
	return out
}

// bumpStateSerial moves an instance's local state on by one serial, as any other writer of the
// state would: a plan saved before it is stale.
func bumpStateSerial(t *testing.T, e *testsuite.Env, tenant, name string) {
	runner, ok := e.Activities.Terraform.(*terraform.Runner)
	require.True(t, ok, "the env runs real terraform")
	path := runner.StatePath(terraform.Workspace{Tenant: tenant, Name: name})
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	re := regexp.MustCompile(`"serial": (\d+)`)
	m := re.FindSubmatch(data)
	require.NotNil(t, m, "state:\n%s", data)
	n, _ := strconv.Atoi(string(m[1]))
	edited := re.ReplaceAll(data, []byte(`"serial": `+strconv.Itoa(n+1)))
	require.NoError(t, os.WriteFile(path, edited, 0o600))
}

// giteaWebhookEnv is an env whose forge is gs's gitops repository, with slipway's webhook handler
// for it behind wrap (which records what it answers) registered as that repository's webhook
// signed with secret; it returns the env and the handler's base URL.
func giteaWebhookEnv(t *testing.T, gs *giteaserver.Server, secret string, wrap func(http.Handler) http.Handler) (*testsuite.Env, string) {
	t.Helper()
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "gitea", URL: gs.URL, Repo: gs.AdminUser + "/gitops", Token: gs.Token}
	})
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{
		"gitea": {Secret: []byte(secret), Repos: []string{gs.AdminUser + "/gitops"}}}}, e.Client)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(wrap(h))
	t.Cleanup(srv.Close)
	require.NoError(t, gs.AddWebhook(context.Background(), "gitops", srv.URL+"/gitea", secret))
	return e, srv.URL
}

// giteaGitOps starts a real Gitea with a GitOps repo "gitops" holding the example stack and
// extra, and returns it with a push URL that carries the admin's token.
func giteaGitOps(t *testing.T, extra map[string][]byte) (*giteaserver.Server, string) {
	gs := giteaserver.Start(t)
	clone := gs.CreateRepo(t, "gitops")
	push := strings.Replace(clone, "://", "://"+gs.AdminUser+":"+gs.Token+"@", 1)
	stack, err := examples.StackFiles("example")
	require.NoError(t, err)
	seed := map[string][]byte{}
	for p, d := range stack {
		seed["stacks/example/"+p] = d
	}
	for p, d := range extra {
		seed[p] = d
	}
	testsuite.PushFiles(t, push, "the example stack", seed)
	return gs, push
}
