package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

func TestApplyStalePlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "stale"}
	ready(t, r, ws, twoResources("b"))
	older, err := r.Plan(ctx, ws, "b", false)
	require.NoError(t, err)
	require.NoError(t, r.Prepare(ctx, ws, twoResources("a")))
	newer, err := r.Plan(ctx, ws, "a", false)
	require.NoError(t, err)

	_, err = r.Apply(ctx, ws, newer)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, older)
	var stale *StalePlanError
	require.ErrorAs(t, err, &stale)
	assert.Equal(t, older.File, stale.File)
	assert.Contains(t, err.Error(), "acme/stale")
	applied, err := r.plans.Applied(ctx, ws, older.SHA256)
	require.NoError(t, err)
	assert.False(t, applied, "a refused plan must not be marked applied")
}

func TestApplyMissingOrChangedPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "missing"}
	ready(t, r, ws, twoResources("one"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)

	tampered := *p
	tampered.SHA256 = strings.Repeat("0", 64)
	_, err = r.Apply(ctx, ws, &tampered)
	var pm *PlanMissingError
	require.ErrorAs(t, err, &pm)
	assert.Contains(t, pm.Reason, p.SHA256)

	// The stored copy of the plan was replaced by another plan of the same name.
	stored, err := r.plans.LoadPlan(ctx, ws, "deploy")
	require.NoError(t, err)
	other := stored
	other.SHA256 = strings.Repeat("1", 64)
	require.NoError(t, r.plans.SavePlan(ctx, ws, "deploy", other))
	require.NoError(t, os.Remove(p.File))
	_, err = r.Apply(ctx, ws, p)
	require.ErrorAs(t, err, &pm)
	assert.Contains(t, pm.Reason, "expected "+p.SHA256)

	// Bytes that do not hash to the recorded sum are never written out, let alone applied.
	other.SHA256, other.Plan = p.SHA256, []byte("garbage")
	require.NoError(t, r.plans.SavePlan(ctx, ws, "deploy", other))
	_, err = r.Apply(ctx, ws, p)
	require.ErrorAs(t, err, &pm)
	assert.Contains(t, pm.Reason, "bytes hash to")
	assert.Contains(t, err.Error(), "acme/missing")

	_, err = r.Apply(ctx, ws, &Plan{File: "never.tfplan", SHA256: p.SHA256})
	require.ErrorAs(t, err, &pm)
	assert.Contains(t, pm.Reason, "not in the plan store")
	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs, "nothing may be applied without the checked plan")
}

// A plan made on one host is applied on another that never saw the instance (no working
// directory, no init), through the shared plan store and the shared pg state.
func TestPlanOnOneRunnerApplyOnAnotherPG(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	requireTerraform(t)
	s := postgres.Start(t)
	conn := s.CreateDB(t, "tfstate")
	shared := localPlans{dir: t.TempDir()}
	a := newRunner(t, WithPGBackend(conn), WithPlanStore(shared))
	b := newRunner(t, WithPGBackend(conn), WithPlanStore(shared))
	ws := Workspace{Tenant: "acme", Name: "moved"}
	ready(t, a, ws, twoResources("one"))
	p, err := a.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = os.Stat(b.Dir(ws))
	require.ErrorIs(t, err, os.ErrNotExist, "b has never seen the workspace")

	already, err := b.Apply(ctx, ws, &Plan{File: filepath.Base(p.File), SHA256: p.SHA256})
	require.NoError(t, err)
	assert.False(t, already)
	rs, err := a.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Len(t, rs, p.Summary.Add, "b's apply landed in the shared state")

	already, err = a.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.True(t, already, "the marker is shared: a retry on a never applies twice")

	// A retry lands on a third host that never saw the workspace: nothing is applied, and
	// the state it reads next (resources, serial) is readable there.
	c := newRunner(t, WithPGBackend(conn), WithPlanStore(shared))
	already, err = c.Apply(ctx, ws, &Plan{File: filepath.Base(p.File), SHA256: p.SHA256})
	require.NoError(t, err)
	assert.True(t, already)
	rs, err = c.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Len(t, rs, p.Summary.Add)
	serial, err := c.Serial(ctx, ws)
	require.NoError(t, err)
	assert.Positive(t, serial)
}

func TestApplyInputValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "x"}
	other := Workspace{Tenant: "acme", Name: "y"}
	good := strings.Repeat("a", 64)
	cases := map[string]struct {
		p     *Plan
		field string
	}{
		"nil":             {nil, "plan"},
		"bad hash":        {&Plan{File: filepath.Join(r.Dir(ws), "p.tfplan"), SHA256: "xyz"}, "plan.SHA256"},
		"other workspace": {&Plan{File: filepath.Join(r.Dir(other), "p.tfplan"), SHA256: good}, "plan.File"},
		"bad name":        {&Plan{File: "../p.tfplan", SHA256: good}, "plan.File"},
		"not a plan":      {&Plan{File: filepath.Join(r.Dir(ws), "main.tf"), SHA256: good}, "plan.File"},
	}
	for name, c := range cases {
		_, err := r.Apply(ctx, ws, c.p)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, c.field, ie.Field, name)
	}
}
