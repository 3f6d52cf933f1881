package terraform

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/errkind"
)

func TestPlanOneInputChangeIsExactlyOneChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "one-change"}
	ready(t, r, ws, twoResources("one"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)

	require.NoError(t, r.Prepare(ctx, ws, twoResources("two")))
	p, err = r.Plan(ctx, ws, "update", false)
	require.NoError(t, err)
	assert.Equal(t, PlanSummary{Change: 1, Resources: []ResourceChange{
		{Address: "terraform_data.a", Type: "terraform_data", Name: "a", Actions: []string{"update"}, Attributes: []AttributeChange{
			{Path: "input", Before: `"one"`, After: `"two"`},
			{Path: "output", Before: `"one"`, After: UnknownValue},
		}},
	}}, p.Summary)
}

// The attribute-level plan never carries a sensitive value, on either side, nested or whole.
func TestPlanAttributesMaskSensitiveValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "sensitive"}
	cfg := func(secret, plain string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "r" {
  input = { token = sensitive("` + secret + `"), plain = "` + plain + `" }
}
resource "terraform_data" "w" {
  input = sensitive("` + secret + `")
}`)}
	}
	ready(t, r, ws, cfg("hunter2-old", "a"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)

	require.NoError(t, r.Prepare(ctx, ws, cfg("hunter2-new", "b")))
	p, err = r.Plan(ctx, ws, "update", false)
	require.NoError(t, err)
	require.Len(t, p.Summary.Resources, 2)
	byPath := map[string]AttributeChange{}
	for _, rc := range p.Summary.Resources {
		for _, a := range rc.Attributes {
			byPath[rc.Address+" "+a.Path] = a
			assert.NotContains(t, a.Before+a.After, "hunter2", "a sensitive value leaked into %s %s", rc.Address, a.Path)
		}
	}
	assert.Equal(t, AttributeChange{Path: "input.plain", Before: `"a"`, After: `"b"`}, byPath["terraform_data.r input.plain"])
	assert.Equal(t, AttributeChange{Path: "input.token", Before: SensitiveValue, After: SensitiveValue, Sensitive: true},
		byPath["terraform_data.r input.token"])
	assert.Equal(t, AttributeChange{Path: "input", Before: SensitiveValue, After: SensitiveValue, Sensitive: true},
		byPath["terraform_data.w input"])
}

func TestPlanReplaceCountsAddAndDestroy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "replace"}
	cfg := func(trigger string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(`resource "terraform_data" "r" { triggers_replace = "` + trigger + `" }`)}
	}
	ready(t, r, ws, cfg("1"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)

	require.NoError(t, r.Prepare(ctx, ws, cfg("2")))
	p, err = r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Summary.Add)
	assert.Equal(t, 1, p.Summary.Destroy)
	assert.Zero(t, p.Summary.Change)
	require.Len(t, p.Summary.Resources, 1)
	assert.ElementsMatch(t, []string{"delete", "create"}, p.Summary.Resources[0].Actions)
}

func TestPlanOutputOnlyChangeIsAChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "outputs"}
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(`output "o" { value = "v" }`)})
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	assert.False(t, p.Summary.NoChanges, "a new output still needs an apply")
	assert.Empty(t, p.Summary.Resources)
}

func TestPlanFailureRemovesOldPlanFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "broken"}
	ready(t, r, ws, twoResources("one"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)

	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte(`resource "terraform_data" "a" { input = nope }`)}))
	_, err = r.Plan(ctx, ws, "deploy", false)
	var ce *CommandError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "plan", ce.Command)
	assert.Equal(t, ws, ce.Workspace)
	assert.Contains(t, ce.Stderr, "Invalid reference")
	assert.NotContains(t, ce.Stderr, "\x1b[")
	assert.LessOrEqual(t, len(ce.Stderr), maxStderrTail)
	_, err = os.Stat(p.File)
	assert.ErrorIs(t, err, os.ErrNotExist, "an old plan must not survive a failed re-plan under its name")
}

func TestPlanNameValidation(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	for _, name := range []string{"", "../x", "a/b", ".hidden", "x y"} {
		_, err := r.Plan(context.Background(), Workspace{Tenant: "acme", Name: "x"}, name, false)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, "planName", ie.Field)
	}
}

// TestAStoredPlanCarriesOnlyWhatSlipwayWrote: a file terraform's code adds to the working
// directory during a plan (here written by the test in its place) does not travel with the stored
// plan to the worker that applies it, and a file of slipway's that it changes fails the plan,
// naming the file, with nothing stored. Before, the stored plan carried every file it found there.
func TestAStoredPlanCarriesOnlyWhatSlipwayWrote(t *testing.T) {
	plans := localPlans{dir: t.TempDir()}
	r := newRunner(t, WithPlanStore(plans))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, twoResources("one"))
	dir := r.Dir(ws)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "added.tf"), []byte("output \"added\" {\n  value = 1\n}\n"), 0o600))
	_, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	saved, err := plans.LoadPlan(ctx, ws, "p1")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"main.tf", "modules/m/main.tf", BackendFile}, slices.Collect(maps.Keys(saved.Files)))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "modules", "m", "main.tf"), []byte("# rewritten\n"), 0o600))
	_, err = r.Plan(ctx, ws, "p2", false)
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, "modules/m/main.tf", bad.Value)
	assert.ErrorIs(t, err, errkind.Invalid)
	_, err = plans.LoadPlan(ctx, ws, "p2")
	var none *PlanNotStoredError
	assert.ErrorAs(t, err, &none, "nothing stored")
	assert.NoFileExists(t, filepath.Join(dir, "p2"+planExt))
}
