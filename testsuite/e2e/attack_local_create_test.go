package e2e

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// The issue 36 case 2 attack, on the dev server, git and terraform: a push adds
// instances/acme/evil/instance.yaml and, beside it, the tenant's own terraform/main.tf (HCL that
// reads a file of the worker's into an error and writes a marker), and a local create adopts that
// commit. Only instance.yaml is recorded as slipway's; the deprovision and the deploy that follow
// stop at verify-render naming the added main.tf, so it never runs: no marker, nothing read. A
// local create of the instance file alone still deploys through slipway's own MR.
func TestAttackLocalCreateAdoptsOnlyTheInstanceFile(t *testing.T) {
	ctx := context.Background()
	e := testsuite.NewEnv(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	secret := filepath.Join(dir, "worker-secret")
	const canary = "worker-secret-canary-36"
	require.NoError(t, os.WriteFile(secret, []byte(canary), 0o600))
	evilTF := `resource "terraform_data" "pwn" {
  provisioner "local-exec" {
    command = "touch ` + marker + `"
  }
  provisioner "local-exec" {
    when    = destroy
    command = "touch ` + marker + `"
  }
}

output "leak" {
  value = tonumber(file("` + secret + `"))
}
`
	adopt := func(ref contract.Ref, files map[string][]byte) string {
		testsuite.PushFiles(t, e.GitOpsRepo, "tenant push of "+ref.String(), files)
		sha := strings.TrimSpace(testsuite.Git(t, e.GitOpsRepo, "rev-parse", "main"))
		h, err := e.Client.Submit(ctx, ref, lifecycle.OpProvision, contract.OperationRequest{
			ConfigYAML: string(files[ref.Dir()+"/instance.yaml"]), Adopt: sha}, "")
		require.NoError(t, err)
		res, err := h.Get(ctx)
		require.NoError(t, err)
		require.Equal(t, contract.ResultSucceeded, res.Result, "%+v", res.Failure)
		return sha
	}

	evil := contract.Ref{Tenant: "acme", Name: "evil"}
	sha := adopt(evil, map[string][]byte{
		"instances/acme/evil/instance.yaml":     instanceFile("evil"),
		"instances/acme/evil/terraform/main.tf": []byte(evilTF),
	})
	st := e.Status(evil.String())
	require.Equal(t, lifecycle.ConfigurationCreated, st.State)
	require.Equal(t, sha, st.Revision)
	require.NotNil(t, st.Render)
	assert.Equal(t, []string{"instance.yaml"}, slices.Sorted(maps.Keys(st.Render.Files)), "only the validated config is slipway's")

	// The deprovision that ran the tenant's HCL (terraform destroy evaluates it even with no state).
	out := e.CLI("deprovision", evil.String(), "--yes", "--wait")
	require.Equal(t, 1, out.Code, out.Stdout+out.Stderr)
	requireStoppedAtVerifyRender(t, e, evil, sha)
	e.MustCLI(0, "abandon", evil.String(), "--reason", "the tenant's terraform is not slipway's")

	// The deploy stops there too: it never reaches the MR that would render the stack.
	out = e.CLI("deploy", evil.String(), "--wait")
	require.Equal(t, 1, out.Code, out.Stdout+out.Stderr)
	requireStoppedAtVerifyRender(t, e, evil, sha)

	_, err := os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "the tenant's local-exec never ran")
	all := e.CLI("status", evil.String(), "--detail", "all", "-o", "json")
	assert.NotContains(t, all.Stdout+all.Stderr, canary, "the tenant's HCL read nothing of the worker's")
	assert.Empty(t, e.Resources(evil), "terraform applied nothing")

	// The instance file alone: recorded, then the deploy renders the stack through slipway's MR.
	good := contract.Ref{Tenant: "acme", Name: "good"}
	adopt(good, map[string][]byte{"instances/acme/good/instance.yaml": instanceFile("good")})
	e.MustCLI(0, "deploy", good.String(), "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status(good.String()).State)
	files, err := e.Activities.Forge.ReadDir(ctx, "", good.Dir())
	require.NoError(t, err)
	require.Contains(t, files, "terraform/main.tf", "the render was merged")
	require.Contains(t, slices.Sorted(maps.Keys(e.Status(good.String()).Render.Files)), "terraform/main.tf", "and recorded from slipway's MR")
}

// requireStoppedAtVerifyRender checks the operation failed at verify-render naming the tenant's file.
func requireStoppedAtVerifyRender(t *testing.T, e *testsuite.Env, ref contract.Ref, sha string) {
	t.Helper()
	st := e.Status(ref.String())
	require.NotNil(t, st.Failure, "%s", st.State)
	require.Equal(t, contract.VerifyRender, st.Failure.Step, st.Failure.Error)
	require.Contains(t, st.Failure.Error, "added terraform/main.tf")
	require.Contains(t, st.Failure.Error, "not what slipway rendered at merge "+sha[:12])
	for _, s := range st.Operation.Steps {
		require.NotContains(t, []string{contract.TFInit, contract.TFPlan, contract.TFApply, contract.TFDestroy}, s.Name, "no terraform step ran")
	}
}
