package instant

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/terraform"
)

func TestForgeReadsEachRevisionAsItWasMerged(t *testing.T) {
	ctx := context.Background()
	f := NewForge(map[string][]byte{"stacks/example/schema.yaml": []byte("s"), "stacks/example/terraform/main.tf": []byte("tf")})
	base, err := f.Head(ctx)
	require.NoError(t, err)
	stack, err := f.ReadDir(ctx, "", "stacks/example")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"schema.yaml": []byte("s"), "terraform/main.tf": []byte("tf")}, stack)

	change := forge.Change{Branch: "slipway/a/b/provision-1", Dir: "instances/a/b", Files: map[string][]byte{"instance.yaml": []byte("v1")}}
	mr, err := f.Open(ctx, change)
	require.NoError(t, err)
	assert.Equal(t, forge.StateOpen, mr.State)
	again, err := f.Open(ctx, change)
	require.NoError(t, err)
	assert.Equal(t, mr, again, "opening the same branch again returns the same MR")
	open, err := f.ListOpen(ctx, "slipway/a/")
	require.NoError(t, err)
	assert.Len(t, open, 1)

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateMerged, merged.State)
	assert.NotEqual(t, base, merged.MergeSHA)
	twice, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA, twice.MergeSHA, "merging a merged MR changes nothing")

	at, err := f.ReadDir(ctx, merged.MergeSHA, "instances/a/b")
	require.NoError(t, err)
	assert.Equal(t, "v1", string(at["instance.yaml"]))
	before, err := f.ReadDir(ctx, base, "instances/a/b")
	require.NoError(t, err)
	assert.Empty(t, before, "the base revision has no instance yet")

	same, err := f.Open(ctx, forge.Change{Branch: "slipway/a/b/deploy-2", Dir: "instances/a/b", Files: change.Files})
	require.NoError(t, err)
	assert.True(t, same.NoChanges, "a change equal to main opens nothing")

	_, err = f.ReadDir(ctx, "0000000", "instances/a/b")
	assert.Error(t, err, "an unknown revision is an error, as in git")
}

func TestForgeClosesAndReopens(t *testing.T) {
	ctx := context.Background()
	f := NewForge(nil)
	change := forge.Change{Branch: "slipway/a/b/provision-1", Dir: "instances/a/b", Files: map[string][]byte{"instance.yaml": []byte("v1")}}
	mr, err := f.Open(ctx, change)
	require.NoError(t, err)
	closed, err := f.Close(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateClosed, closed.State)
	again, err := f.Close(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, closed, again, "closing a closed MR changes nothing")
	open, err := f.ListOpen(ctx, "slipway/")
	require.NoError(t, err)
	assert.Empty(t, open)
	_, err = f.Merge(ctx, mr)
	assert.Error(t, err, "a closed MR cannot be merged")

	reopened, err := f.Open(ctx, change)
	require.NoError(t, err)
	assert.Equal(t, forge.StateOpen, reopened.State)
	assert.NotEqual(t, mr.HeadSHA, reopened.HeadSHA, "a new MR")
	merged, err := f.Merge(ctx, reopened)
	require.NoError(t, err)
	_, err = f.Close(ctx, merged)
	var me *forge.MergedError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, merged, me.MR)
}

func TestTerraformPlansWhatChangedAndAppliesOnce(t *testing.T) {
	ctx := context.Background()
	tf := NewTerraform()
	ws := terraform.Workspace{Tenant: "a", Name: "b", Schema: "a_b"}
	require.NoError(t, tf.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte("v1")}))
	_, err := tf.Plan(ctx, ws, "op1", false)
	require.Error(t, err, "plan before init")
	require.NoError(t, tf.Init(ctx, ws))
	assert.True(t, tf.Initialized(ws))

	p, err := tf.Plan(ctx, ws, "op1", false)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Summary.Add)
	already, err := tf.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.False(t, already)
	already, err = tf.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.True(t, already, "a retried apply applies nothing")
	res, err := tf.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Equal(t, []terraform.Resource{{Address: "terraform_data.main", Type: "terraform_data", Name: "main"}}, res)

	same, err := tf.Plan(ctx, ws, "op2", false)
	require.NoError(t, err)
	assert.True(t, same.Summary.NoChanges)
	require.NoError(t, tf.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte("v2")}))
	changed, err := tf.Plan(ctx, ws, "op3", false)
	require.NoError(t, err)
	assert.Equal(t, 1, changed.Summary.Change)

	destroy, err := tf.Plan(ctx, ws, "op4-destroy", true)
	require.NoError(t, err)
	assert.Equal(t, 1, destroy.Summary.Destroy)
	_, err = tf.Apply(ctx, ws, destroy)
	require.NoError(t, err)
	res, err = tf.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, res)
	serial, err := tf.Serial(ctx, ws)
	require.NoError(t, err)
	assert.Equal(t, int64(2), serial)

	_, err = tf.Apply(ctx, ws, &terraform.Plan{File: "op9.tfplan", SHA256: "x"})
	assert.Error(t, err, "an unknown plan is refused")
}

func TestSeededFleetReadsAsProvisionedAtTheSeedRevision(t *testing.T) {
	ctx := context.Background()
	seed, err := FleetFiles("scale", 3)
	require.NoError(t, err)
	acts, err := NewWith(seed)
	require.NoError(t, err)
	head, err := acts.Forge.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, SeedRevision(), head)
	ref := FleetRef("scale", 2)
	files, err := acts.Forge.ReadDir(ctx, head, ref.Dir())
	require.NoError(t, err)
	assert.Contains(t, string(files["instance.yaml"]), "replicas: 1")
	assert.Contains(t, files, "terraform/main.tf", "the rendered stack, as a provision merges it")
	stack, err := acts.Forge.ReadDir(ctx, head, "stacks/example")
	require.NoError(t, err)
	assert.Contains(t, stack, "schema.yaml")
}
