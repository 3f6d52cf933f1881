package e2e

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// Deletion protection on the shared dev server: an instance whose file says protected: true
// refuses destroy from the CLI (as a platform admin) and from a webhook commit line the operator
// allows, until unprotect with a reason; the unprotect is in the audit log with its reason.
func TestProtectedInstanceRefusesDestroyFromTheCLIAndAWebhook(t *testing.T) {
	webhookPushers(t, "bob")
	fake := fakegithub.New(t)
	fake.AddRepo("acme", "gitops", "main")
	commit := func(msg string, files map[string][]byte) string {
		return fake.CommitFiles("acme", "gitops", "main", msg, files)
	}
	commit("the example stack", seedExample(t))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "github", URL: fake.URL, Repo: "acme/gitops", Token: fake.Token}
	})
	secret := []byte("github-hmac-secret")
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: secret, Repos: []string{"acme/gitops"}}},
		CommitOps: []lifecycle.Operation{lifecycle.OpProvision, lifecycle.OpDestroy}}, e.Client)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hook := forgeHook{t: t, url: srv.URL + "/github", provider: "github", key: secret}
	const ref = "acme/vault"

	sha := commit("vault", map[string][]byte{"instances/acme/vault/instance.yaml": append(instanceFile("v1"), "protected: true\n"...)})
	code, resp := hook.send("create-1", hook.pushEvent("acme/gitops", "bob", sha, "Bob", "bob@tenant.test", "vault\n\n[slipway][create] "+ref))
	require.Equal(t, http.StatusAccepted, code, "%+v", resp)
	waitState(t, e, ref, lifecycle.ConfigurationCreated)
	e.MustCLI(0, "deploy", ref, "--wait")
	st := e.Status(ref)
	require.NotNil(t, st.Protection)
	require.Equal(t, "file", st.Protection.Source)
	require.Contains(t, e.MustCLI(0, "status", ref).Stdout, "protected: since")

	// The CLI's dev actor is a platform admin: refused all the same, exit 2, naming the remedy.
	out := e.MustCLI(2, "destroy", ref)
	require.Contains(t, out.Stderr, "destroy refused: the instance is protected from deletion")
	require.Contains(t, out.Stderr, "slipway unprotect acme/vault --reason TEXT")
	require.Contains(t, e.MustCLI(2, "deprovision", ref, "--yes").Stderr, "deprovision refused: the instance is protected")

	// A destroy line the operator allows: the instance's validator refuses it, recorded on the delivery.
	head := commit("tidy", map[string][]byte{"notes/vault.md": []byte("to be retired\n")})
	code, resp = hook.send("destroy-1", hook.pushEvent("acme/gitops", "bob", head, "Bob", "bob@tenant.test", "tidy\n\n[slipway][destroy] "+ref))
	require.Equal(t, http.StatusAccepted, code)
	got := outcomes(t, e, resp.Workflow)
	require.Len(t, got, 1)
	require.False(t, got[0].Started)
	require.Contains(t, got[0].Error, "destroy refused: the instance is protected from deletion")
	require.Equal(t, lifecycle.Deployed, e.Status(ref).State)

	require.Contains(t, e.MustCLI(2, "unprotect", ref).Stderr, "--reason is required")
	e.MustCLI(0, "unprotect", ref, "--reason", "decommissioning the vault")
	require.Nil(t, e.Status(ref).Protection)
	require.Contains(t, e.MustCLI(0, "audit", "--tenant", "acme").Stdout, "decommissioning the vault")
	e.MustCLI(0, "destroy", ref, "--wait")
	require.Equal(t, lifecycle.Destroyed, e.Status(ref).State)
}
