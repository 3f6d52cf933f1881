package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	_, err = os.Stat(filepath.Join(r.Dir(ws), appliedDir, older.SHA256))
	assert.ErrorIs(t, err, os.ErrNotExist, "a refused plan must not be marked applied")
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

	require.NoError(t, os.Remove(p.File))
	_, err = r.Apply(ctx, ws, p)
	require.ErrorAs(t, err, &pm)
	assert.Contains(t, err.Error(), "does not exist")
	assert.Contains(t, err.Error(), "acme/missing")
	rs, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Empty(t, rs, "nothing may be applied without the checked plan")
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
		"not a plan":      {&Plan{File: filepath.Join(r.Dir(ws), "main.tf"), SHA256: good}, "plan.File"},
	}
	for name, c := range cases {
		_, err := r.Apply(ctx, ws, c.p)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, c.field, ie.Field, name)
	}
}
