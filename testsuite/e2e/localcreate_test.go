package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
)

// Grove's local create on a real Gitea: a tenant pushes instances/acme/web/instance.yaml to main
// with no command line, and the instance is ConfigurationCreated at that commit with no MR; a bad
// file is refused with a commit status naming the field and nothing else changes; a file in
// another tenant's folder is refused by the policy; slipway's own merges never trigger it; a
// plain deploy then renders the config through slipway's MR and applies it.
func TestAPushedInstanceFileIsCreatedWithoutAnMR(t *testing.T) {
	ctx := context.Background()
	gs, push := giteaGitOps(t, nil)
	// bob is a member of tenant acme only; the admin account is slipway's own.
	dir := t.TempDir()
	rego, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "default", "slipway.rego"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), rego, 0o644))
	data, err := json.Marshal(map[string]any{"slipway": map[string]any{"groups": []string{"platform-admins", "tenant:*"},
		"forge_users": map[string]any{"gitea": map[string]string{"bob": "bob", gs.AdminUser: gs.AdminUser}},
		"people":      map[string]any{"bob": map[string]any{"groups": []string{"tenant:acme"}}, gs.AdminUser: map[string]any{"groups": []string{"platform-admins"}}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644))
	t.Setenv(policy.EnvDir, dir)

	got := &deliveries{}
	e, _ := giteaWebhookEnv(t, gs, "local-create-secret", func(h http.Handler) http.Handler { got.next = h; return got })
	admin, err := gs.Client(ctx)
	require.NoError(t, err)
	no := false
	_, _, err = admin.AdminCreateUser(gitea.CreateUserOption{Username: "bob", Email: "bob@tenant.test",
		Password: "pw-bob-123456", MustChangePassword: &no})
	require.NoError(t, err)
	write := gitea.AccessModeWrite
	_, err = admin.AddCollaborator(gs.AdminUser, "gitops", "bob", gitea.AddCollaboratorOption{Permission: &write})
	require.NoError(t, err)
	bob := strings.Replace(push, gs.AdminUser+":"+gs.Token+"@", "bob:pw-bob-123456@", 1)
	require.NotEqual(t, push, bob)
	status := func(sha, ctxName string) *gitea.Status {
		var found *gitea.Status
		require.Eventually(t, func() bool {
			sts, _, err := admin.ListStatuses(gs.AdminUser, "gitops", sha, gitea.ListStatusesOption{})
			for _, s := range sts {
				if err == nil && s.Context == ctxName {
					found = s
					return true
				}
			}
			return false
		}, time.Minute, 200*time.Millisecond, "commit %s gets status %s", sha, ctxName)
		return found
	}

	// The local create: no command line, no MR.
	sha := pushAs(t, bob, "Bob Tenant", "bob@tenant.test", "web, created locally [mark-local]",
		map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("local")})
	local := got.await(t, "mark-local")
	require.Equal(t, http.StatusAccepted, local.code, "%+v", local.resp)
	out := outcomes(t, e, local.resp.Workflow)
	require.Len(t, out, 1)
	require.True(t, out[0].Started, "%+v", out[0])
	waitState(t, e, "acme/web", lifecycle.ConfigurationCreated)
	st := e.Status("acme/web")
	require.Equal(t, sha, st.Revision, "created at the pushed commit")
	require.Contains(t, st.Operation.Note, "bob via gitea push")
	prs, _, err := admin.ListRepoPullRequests(gs.AdminUser, "gitops", gitea.ListPullRequestsOptions{State: gitea.StateAll})
	require.NoError(t, err)
	require.Empty(t, prs, "no pull request")
	require.Equal(t, gitea.StatusSuccess, status(sha, "slipway/create acme/web").State)

	// A bad file: refused with a commit status naming the field; nothing is created.
	bad := pushAs(t, bob, "Bob Tenant", "bob@tenant.test", "api, typo [mark-bad]",
		map[string][]byte{"instances/acme/api/instance.yaml": []byte("stack: example\nparameters:\n  greeting: hi\n  replicas: many\n")})
	refused := got.await(t, "mark-bad")
	out = outcomes(t, e, refused.resp.Workflow)
	require.Len(t, out, 1)
	require.False(t, out[0].Started)
	require.Contains(t, out[0].Error, "parameters.replicas")
	st2 := status(bad, "slipway/create acme/api")
	require.Equal(t, gitea.StatusFailure, st2.State)
	require.Contains(t, st2.Description, "parameters.replicas")
	requireNothingCreated(t, e, "acme/api")

	// Another tenant's folder: the policy refuses bob there.
	other := pushAs(t, bob, "Bob Tenant", "bob@tenant.test", "not mine [mark-other]",
		map[string][]byte{"instances/globex/web/instance.yaml": instanceFile("sneaky")})
	foreign := got.await(t, "mark-other")
	out = outcomes(t, e, foreign.resp.Workflow)
	require.Len(t, out, 1)
	require.False(t, out[0].Started)
	require.Contains(t, out[0].Error, "not a member of tenant:globex")
	require.Equal(t, gitea.StatusFailure, status(other, "slipway/create globex/web").State)
	requireNothingCreated(t, e, "globex/web")

	// slipway's own merge (a create through its MR) is the merge event's: its push creates nothing.
	e.MustCLI(0, "create", "acme/db", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: db\n"), "--wait")
	merged := got.await(t, "Merge pull request 'slipway: provision acme/db'")
	require.Equal(t, http.StatusNoContent, merged.code, "%+v", merged.resp)

	// A plain deploy renders the pushed config through slipway's MR and applies it.
	e.MustCLI(0, "deploy", "acme/web", "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status("acme/web").State)
	require.NotEmpty(t, e.Resources(web))
	cfg, err := e.Activities.Forge.ReadDir(ctx, "", "instances/acme/web")
	require.NoError(t, err)
	require.Contains(t, cfg, "terraform/main.tf", "the render was merged")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(web), "plan-current-stack-local-create")
}

// requireNothingCreated checks ref has no configuration and ran no operation (or does not exist).
func requireNothingCreated(t *testing.T, e *testsuite.Env, ref string) {
	t.Helper()
	r := e.CLI("status", ref, "-o", "json")
	if r.Code == 2 {
		return
	}
	require.Equal(t, 0, r.Code, r.Stderr)
	var st contract.Status
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &st))
	require.Equal(t, lifecycle.NoConfiguration, st.State, "%s", ref)
	require.Nil(t, st.Operation, "%s ran no operation", ref)
}
