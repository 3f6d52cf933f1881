package terraform

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func resourceAddrs(rs []Resource) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Address)
	}
	return out
}

// roundTrip runs prepare → init → plan → apply (twice) → re-plan → destroy on r.
func roundTrip(t *testing.T, r *Runner, ws Workspace) {
	ctx := context.Background()
	ready(t, r, ws, twoResources("one"))
	require.NoError(t, r.Init(ctx, ws), "init is repeatable")

	serial, err := r.Serial(ctx, ws)
	require.NoError(t, err)
	// pg init writes an empty state (serial 1) so the workspace has its own row and lock.
	assert.LessOrEqual(t, serial, int64(1))
	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs)

	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.Dir(ws), "deploy.tfplan"), p.File)
	sum, err := fileSHA256(p.File)
	require.NoError(t, err)
	assert.Equal(t, sum, p.SHA256)
	assert.Equal(t, PlanSummary{Add: 3, Resources: []ResourceChange{
		{Address: "module.m.terraform_data.c", Type: "terraform_data", Name: "c", Actions: []string{"create"}},
		{Address: "terraform_data.a", Type: "terraform_data", Name: "a", Actions: []string{"create"}},
		{Address: "terraform_data.b", Type: "terraform_data", Name: "b", Actions: []string{"create"}},
	}}, withoutAttributes(p.Summary))
	assert.Contains(t, p.Summary.Resources[1].Attributes, AttributeChange{Path: "input", Before: "null", After: `"one"`})

	already, err := r.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.False(t, already)
	rs, err = r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Equal(t, []Resource{
		{Address: "module.m.terraform_data.c", Type: "terraform_data", Name: "c"},
		{Address: "terraform_data.a", Type: "terraform_data", Name: "a"},
		{Address: "terraform_data.b", Type: "terraform_data", Name: "b"},
	}, rs)
	serial, err = r.Serial(ctx, ws)
	require.NoError(t, err)
	assert.Positive(t, serial)

	// The same plan again is a no-op: terraform is not run, so the serial stays.
	already, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.True(t, already)
	again, err := r.Serial(ctx, ws)
	require.NoError(t, err)
	assert.Equal(t, serial, again)

	noop, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	assert.Equal(t, PlanSummary{NoChanges: true}, noop.Summary)
	assert.NotEqual(t, p.SHA256, noop.SHA256)

	require.NoError(t, r.Destroy(ctx, ws))
	rs, err = r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs)
}

func TestRoundTripLocal(t *testing.T) {
	t.Parallel()
	out := &safeBuffer{}
	r := newRunner(t, WithOutput(out))
	require.Equal(t, "local", r.Backend())
	ws := Workspace{Tenant: "acme", Name: "web-1"}
	roundTrip(t, r, ws)

	assert.Contains(t, out.String(), "Plan: 3 to add, 0 to change, 0 to destroy.", "WithOutput gets terraform's output")
	// Local state lives outside the working directory, which can then be wiped safely.
	_, err := os.Stat(filepath.Join(r.stateDir, "tfstate", "acme", "web-1", "terraform.tfstate"))
	assert.NoError(t, err)
	_, err = os.Stat(filepath.Join(r.Dir(ws), "terraform.tfstate"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, filepath.Join(r.stateDir, "work", "acme", "web-1"), r.Dir(ws))
}

func TestDestroyPlanSummaryAndApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "gone"}
	ready(t, r, ws, twoResources("one"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)

	d, err := r.Plan(ctx, ws, "destroy", true)
	require.NoError(t, err)
	assert.Equal(t, 3, d.Summary.Destroy)
	assert.Zero(t, d.Summary.Add+d.Summary.Change)
	for _, rc := range d.Summary.Resources {
		assert.Equal(t, []string{"delete"}, rc.Actions, rc.Address)
	}
	_, err = r.Apply(ctx, ws, d)
	require.NoError(t, err)
	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs)
}

func TestUnpreparedWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "never"}

	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs)
	serial, err := r.Serial(ctx, ws)
	require.NoError(t, err)
	// pg init writes an empty state (serial 1) so the workspace has its own row and lock.
	assert.LessOrEqual(t, serial, int64(1))
	_, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	assert.False(t, held)

	_, err = r.Plan(ctx, ws, "p", false)
	var ce *CommandError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "plan", ce.Command)
	assert.ErrorIs(t, err, errNotPrepared)
	assert.Contains(t, err.Error(), "acme/never")
}

func TestOutputNeverShowsStateValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out := &safeBuffer{}
	r := newRunner(t, WithOutput(out))
	ws := Workspace{Tenant: "acme", Name: "secret"}
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(`resource "terraform_data" "s" { input = sensitive("topsecret-value") }`)})
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	_, err = r.Serial(ctx, ws)
	require.NoError(t, err)

	assert.Contains(t, out.String(), "terraform_data.s: Creation complete", "apply output is copied")
	assert.NotContains(t, out.String(), "topsecret-value", "show -json / state pull output must not reach the log")
}

// withoutAttributes is s with the attribute-level changes left out, to compare the actions alone.
func withoutAttributes(s PlanSummary) PlanSummary {
	rs := make([]ResourceChange, len(s.Resources))
	for i, r := range s.Resources {
		r.Attributes = nil
		rs[i] = r
	}
	s.Resources = rs
	return s
}
