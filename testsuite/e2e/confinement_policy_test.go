package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
)

// Issue 23, case 5, on the dev server, real git and real terraform: the platform decides the
// approval rule and the worker pools in the stack. An instance file that would loosen them
// (approval: never under destructive, its own approver, an empty list, a longer timeout, a pool
// the stack does not allow) is refused with exit 2 naming the field, at create, deploy -f and
// plan -f, and nothing is created or changed; a tightening (always) is accepted and waits.
func TestInstanceFileCannotWeakenThePlatformPolicy(t *testing.T) {
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	testsuite.PushFiles(t, repo, "a guarded stack", guardedStack("guarded",
		"approval: {policy: destructive, approvers: [alice, bob], timeout: 2h}\ncontrolPlanes: [observability]\n", nil))
	file := func(extra string) string {
		return writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n"+extra)
	}
	weakenings := []struct {
		name, extra, field, msg string
	}{
		{"no approval", "approval: never\n", "approval.policy", "never is weaker than the stack's destructive"},
		{"the tenant's own approver", "approval: {approvers: [mallory]}\n", "approval.approvers", "mallory not among the stack's approvers (alice, bob)"},
		{"anyone approves", "approval: {approvers: []}\n", "approval.approvers", "an empty list would let anyone approve"},
		{"a longer wait", "approval: {timeout: 72h}\n", "approval.timeout", "72h0m0s is longer than the stack's 2h0m0s"},
		{"another pool", "controlPlane: edp\n", "controlPlane", `"edp" is not a worker pool the stack allows (schema.controlPlanes: observability)`},
	}
	for _, w := range weakenings {
		t.Run("create/"+w.name, func(t *testing.T) {
			r := e.MustCLI(2, "create", "policy/web", "-f", file(w.extra), "--wait")
			require.Contains(t, r.Stderr, w.field+": "+w.msg)
		})
	}
	require.Equal(t, 2, e.CLI("status", "policy/web").Code, "no instance was created")
	require.Empty(t, testsuite.Git(t, repo, "ls-tree", "main", "instances/"), "nothing reached the repo")
	require.Empty(t, testsuite.Branches(t, repo, "slipway/"), "no MR was opened")

	// Once it exists, the same files are refused at deploy -f and plan -f; nothing runs.
	e.MustCLI(0, "create", "policy/web", "-f", file(""), "--wait")
	e.MustCLI(0, "deploy", "policy/web", "--wait")
	before := e.Status("policy/web")
	for _, w := range weakenings {
		t.Run("deploy/"+w.name, func(t *testing.T) {
			r := e.MustCLI(2, "deploy", "policy/web", "-f", file(w.extra), "--wait")
			require.Contains(t, r.Stderr, w.field+": "+w.msg)
			r = e.MustCLI(2, "plan", "policy/web", "-f", file(w.extra))
			require.Contains(t, r.Stderr, w.field+": "+w.msg)
		})
	}
	st := e.Status("policy/web")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Len(t, st.History, len(before.History), "no refused request became an operation")
	require.Equal(t, 1, testsuite.Merges(t, repo, "instances/policy/web"))

	// A tightening is the tenant's to ask for: approval always makes even an additive deploy wait.
	e.MustCLI(0, "deploy", "policy/web", "-f", file("  generation: 1\napproval: {policy: always, approvers: [bob], timeout: 1h}\n"))
	var w *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "bob", func() { w = e.Status("policy/web").Approval })
		return w != nil && w.Hash != ""
	}, time.Minute, 50*time.Millisecond)
	require.Contains(t, w.Why, "approval: always")
	require.Equal(t, []string{"user:bob"}, w.Required.Groups, "the instance narrowed the stack's approvers")
	as(t, "alice", func() {
		r := e.CLI("approve", "policy/web", "--plan", w.Hash)
		require.NotEqual(t, 0, r.Code)
		require.Contains(t, r.Stderr, "alice may not approve: not one of the approvers (user:bob)")
	})
	as(t, "bob", func() { e.MustCLI(0, "reject", "policy/web", "--reason", "the test ends here") })
	require.Eventually(t, func() bool { return e.Status("policy/web").State == lifecycle.Deployed }, time.Minute, 50*time.Millisecond)
}

// Issue 23, case 6, on the dev server, real git and real terraform: a commit on main that edits
// only the rendered terraform of a deployed instance (a local-exec that would run on the worker)
// is noticed before terraform runs it. A plain deploy and a destroy each fail at verify-render
// with a leftover naming the file and the commit; the provisioners never ran; once the commit
// is reverted, retry goes on and destroys with slipway's own files.
func TestEditedRenderOnMainNeverRuns(t *testing.T) {
	markerDir := t.TempDir()
	t.Setenv(terraform.EnvSandboxBinds, markerDir) // so that a provisioner that ran would leave its mark
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	const ref = "prov/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	st := e.Status(ref)
	require.Contains(t, step(t, st, contract.VerifyRender).Detail, "file(s) as rendered at merge")

	// The attack: a tenant's PR that changes only instances/prov/web/terraform/main.tf.
	path := "instances/prov/web/terraform/main.tf"
	original, err := exec.Command("git", "-C", repo, "show", "main:"+path).Output()
	require.NoError(t, err)
	marker := filepath.Join(markerDir, "ran-on-the-worker")
	evil := strings.Replace(string(original), `resource "terraform_data" "app" {`, `resource "terraform_data" "app" {
  provisioner "local-exec" {
    when    = destroy
    command = "echo destroy >> `+marker+`"
  }`, 1) + `
resource "terraform_data" "evil" {
  provisioner "local-exec" {
    command = "id -un >> ` + marker + `"
  }
}
`
	testsuite.PushFiles(t, repo, "tweak the app", map[string][]byte{path: []byte(evil)})
	commit := testsuite.Git(t, repo, "rev-parse", "main")
	noMarker := func(when string) {
		_, err := os.Stat(marker)
		require.True(t, os.IsNotExist(err), "%s: terraform ran the edited file", when)
	}
	leftover := func(st contract.Status) contract.Leftover {
		t.Helper()
		require.NotNil(t, st.Failure)
		for _, l := range st.Failure.Leftovers {
			if l.Kind == contract.LeftoverRender {
				return l
			}
		}
		t.Fatalf("no %s leftover in %+v", contract.LeftoverRender, st.Failure.Leftovers)
		return contract.Leftover{}
	}
	checkRefused := func(failed lifecycle.State) {
		t.Helper()
		st := e.Status(ref)
		require.Equal(t, failed, st.State)
		require.Equal(t, contract.VerifyRender, st.Failure.Step)
		require.Equal(t, contract.ErrRenderChanged, st.Failure.Type)
		require.Contains(t, st.Failure.Error, "changed terraform/main.tf; by commit "+commit[:12]+" (operator <op@localhost>: tweak the app)")
		l := leftover(st)
		require.Equal(t, "terraform/main.tf", l.ID)
		require.Contains(t, l.Detail, "instances/prov/web at "+commit[:12]+" is not what slipway rendered")
		require.Contains(t, l.Cleanup, "revert "+commit[:12]+" on main")
	}

	out := e.MustCLI(1, "deploy", ref, "--wait")
	require.Contains(t, out.Stdout, "prov/web is DeploymentFailed")
	checkRefused(lifecycle.DeploymentFailed)
	noMarker("deploy")
	require.Len(t, e.Resources(contract.Ref{Tenant: "prov", Name: "web"}), 2, "terraform_data.evil was never created")

	// Back to Deployed by hand, then a destroy: the same refusal, and the destroy provisioner never ran.
	e.MustCLI(0, "resolve", ref, "--reason", "the deploy changed nothing")
	e.MustCLI(1, "destroy", ref, "--wait")
	checkRefused(lifecycle.DestroyFailed)
	noMarker("destroy")
	require.Len(t, e.Resources(contract.Ref{Tenant: "prov", Name: "web"}), 2, "nothing was destroyed")

	// A retry before the revert fails again; after it, the destroy runs slipway's own files.
	e.MustCLI(1, "retry", ref, "--wait")
	checkRefused(lifecycle.DestroyFailed)
	testsuite.PushFiles(t, repo, "revert the tweak", map[string][]byte{path: original})
	e.MustCLI(0, "retry", ref, "--wait")
	st = e.Status(ref)
	require.Equal(t, lifecycle.Destroyed, st.State)
	require.Contains(t, step(t, st, contract.VerifyRender).Detail, "file(s) as rendered at merge")
	require.Empty(t, e.Resources(contract.Ref{Tenant: "prov", Name: "web"}))
	noMarker("the retried destroy")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "prov", Name: "web"}), "render-provenance-v2")
}

// The same on a real Gitea: the record is read from slipway's own PR head on the forge, and the
// leftover names the commit Gitea lists for the directory.
func TestEditedRenderOnGiteaNamesTheCommit(t *testing.T) {
	gs, push := giteaGitOps(t, nil)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "gitea", URL: gs.URL, Repo: gs.AdminUser + "/gitops", Token: gs.Token}
	})
	const ref = "gitea/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	path := "instances/gitea/web/terraform/main.tf"
	clone := filepath.Join(t.TempDir(), "clone")
	testsuite.Git(t, filepath.Dir(clone), "clone", "-q", push, clone)
	original, err := os.ReadFile(filepath.Join(clone, path))
	require.NoError(t, err)
	testsuite.PushFiles(t, push, "tweak on gitea", map[string][]byte{path: append(append([]byte{}, original...), "\n# tweak\n"...)})
	commit, _, _ := strings.Cut(testsuite.Git(t, t.TempDir(), "ls-remote", push, "refs/heads/main"), "\t")

	e.MustCLI(1, "destroy", ref, "--wait")
	st := e.Status(ref)
	require.Equal(t, lifecycle.DestroyFailed, st.State)
	require.Equal(t, contract.VerifyRender, st.Failure.Step)
	require.Contains(t, st.Failure.Error, "changed terraform/main.tf; by commit "+commit[:12]+" (operator <op@localhost>: tweak on gitea)")
	require.Len(t, e.Resources(contract.Ref{Tenant: "gitea", Name: "web"}), 2, "nothing was destroyed")

	testsuite.PushFiles(t, push, "revert the tweak", map[string][]byte{path: original})
	e.MustCLI(0, "retry", ref, "--wait")
	require.Equal(t, lifecycle.Destroyed, e.Status(ref).State)
	require.Empty(t, e.Resources(contract.Ref{Tenant: "gitea", Name: "web"}))
}
