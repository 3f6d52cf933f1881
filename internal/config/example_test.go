package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/contract"
)

func loadExample(t *testing.T) (*Stack, *Instance) {
	t.Helper()
	files, err := examples.StackFiles("example")
	require.NoError(t, err)
	st, err := LoadStack("example", files)
	require.NoError(t, err)
	data, err := examples.FS.ReadFile("instances/web.yaml")
	require.NoError(t, err)
	inst, err := ParseInstance(data)
	require.NoError(t, err)
	return st, inst
}

func TestExampleStack(t *testing.T) {
	st, inst := loadExample(t)
	assert.Equal(t, []string{"region", "replicas", "greeting", "debug"}, []string{
		st.Schema.Parameters[0].Name, st.Schema.Parameters[1].Name, st.Schema.Parameters[2].Name, st.Schema.Parameters[3].Name})
	region, _ := st.Schema.Param("region")
	assert.True(t, region.Initial)

	out, err := Render(contract.Ref{Tenant: "acme", Name: "web"}, "acme-web", st, inst)
	require.NoError(t, err)
	assert.Equal(t, []string{"instance.yaml", "manifests/app.yaml", "terraform/main.tf"}, sortedKeys(out))
	assert.Equal(t, "stack: example\nparameters:\n  debug: false\n  greeting: hello\n  region: eu-west\n  replicas: 1\n", string(out[InstanceFile]))

	objs, err := ManifestObjects(out)
	require.NoError(t, err)
	assert.Equal(t, []Object{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "app", Namespace: "acme-web"},
	}, objs, "no Namespace: the deployer makes it, the tenant's project permits no cluster-scoped kind")

	// The region is initial: once deployed, moving it is refused with the field named.
	moved := &Instance{Stack: "example", Parameters: map[string]any{"greeting": "hello", "region": "us-east"}}
	_, err = Validate(st, moved, inst)
	assertFieldErrors(t, err, []FieldError{{Field: "parameters.region", Message: `is initial and cannot change after the first deploy (was "eu-west", now "us-east")`}})
}

// TestExampleTerraform runs the real terraform binary on the rendered example: it must init
// without network (built-in provider only), apply, and a replicas change must plan exactly
// one in-place update.
func TestExampleTerraform(t *testing.T) {
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; this test needs the real terraform binary")
	}
	st, inst := loadExample(t)
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	dir := t.TempDir()
	ctx := context.Background()

	tf, err := tfexec.NewTerraform(dir, bin)
	require.NoError(t, err)
	cliConfig := filepath.Join(t.TempDir(), "terraformrc")
	require.NoError(t, os.WriteFile(cliConfig, nil, 0o600))
	// An empty CLI config keeps a developer's plugin cache or mirrors out of the test.
	require.NoError(t, tf.SetEnv(map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "CHECKPOINT_DISABLE": "1", "TF_CLI_CONFIG_FILE": cliConfig,
	}))

	writeTerraform(t, ref, st, inst, dir)
	require.NoError(t, tf.Init(ctx))
	planFile := filepath.Join(dir, "first.tfplan")
	changed, err := tf.Plan(ctx, tfexec.Out(planFile))
	require.NoError(t, err)
	require.True(t, changed)
	plan, err := tf.ShowPlanFile(ctx, planFile)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"terraform_data.app": "create", "terraform_data.network": "create"}, planActions(plan.ResourceChanges))
	require.NoError(t, tf.Apply(ctx, tfexec.DirOrPlan(planFile)))

	state, err := tf.Show(ctx)
	require.NoError(t, err)
	require.NotNil(t, state.Values)
	assert.Equal(t, "acme-web", state.Values.Outputs["namespace"].Value)
	assert.Equal(t, "eu-west", state.Values.Outputs["region"].Value)

	// The greeting also proves quote: terraform must read it literally, not interpolate it.
	tricky := `hi "${there}" %{x} \ ✓`
	inst.Parameters["replicas"] = 2
	inst.Parameters["greeting"] = tricky
	writeTerraform(t, ref, st, inst, dir)
	planFile = filepath.Join(dir, "second.tfplan")
	changed, err = tf.Plan(ctx, tfexec.Out(planFile))
	require.NoError(t, err)
	require.True(t, changed)
	plan, err = tf.ShowPlanFile(ctx, planFile)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"terraform_data.app": "update"}, planActions(plan.ResourceChanges))
	var app *tfjson.ResourceChange
	for _, rc := range plan.ResourceChanges {
		if rc.Address == "terraform_data.app" {
			app = rc
		}
	}
	require.NotNil(t, app)
	after, ok := app.Change.After.(map[string]any)
	require.True(t, ok)
	assert.Equal(t, map[string]any{
		"tenant": "acme", "name": "web", "replicas": float64(2), "greeting": tricky, "debug": false,
	}, after["input"])
}

func writeTerraform(t *testing.T, ref contract.Ref, st *Stack, inst *Instance, dir string) {
	t.Helper()
	out, err := Render(ref, ref.Tenant+"-"+ref.Name, st, inst)
	require.NoError(t, err)
	for p, data := range out {
		if rel, ok := strings.CutPrefix(p, TerraformDir+"/"); ok {
			require.NoError(t, os.WriteFile(filepath.Join(dir, rel), data, 0o600))
		}
	}
}

// planActions maps each changing resource to its action, leaving out no-ops.
func planActions(changes []*tfjson.ResourceChange) map[string]string {
	out := map[string]string{}
	for _, rc := range changes {
		if rc.Change.Actions.NoOp() {
			continue
		}
		var names []string
		for _, a := range rc.Change.Actions {
			names = append(names, string(a))
		}
		out[rc.Address] = strings.Join(names, ",")
	}
	return out
}
