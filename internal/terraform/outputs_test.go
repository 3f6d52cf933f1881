package terraform

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Outputs masks a sensitive output; SecretOutputs, for the instance's Secret only, reads it, and
// names an output the state lacks.
func TestOutputsMaskedAndSecretOutputsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "outs"}
	require.Equal(t, map[string]any{}, outputsOrPanic(r.Outputs(ctx, ws)), "no state yet: no outputs")
	ready(t, r, ws, dbOutputs())
	plan, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, plan)
	require.NoError(t, err)

	require.Equal(t, map[string]any{"host": "db.internal", "password": SensitiveOutput}, outputsOrPanic(r.Outputs(ctx, ws)))
	require.Equal(t, map[string]any{"password": "pw-db"}, outputsOrPanic(r.SecretOutputs(ctx, ws, []string{"password"})))
	_, err = r.SecretOutputs(ctx, ws, []string{"password", "nope"})
	var missing *MissingOutputsError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, []string{"nope"}, missing.Names)
}

func outputsOrPanic[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
