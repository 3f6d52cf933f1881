package terraform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A workspace's commands reuse terraform-exec's handles, so the engine is asked its version once,
// not before every command; an engine replaced in place is asked again. State reads resources,
// masked outputs and the serial in one show and one state pull.
func TestCommandsAskTheEngineVersionOnceAndStateReadsInTwo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	real := requireTerraform(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "terraform")
	// The first word of each command terraform-exec runs, then the real binary.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho \"$1\" >> "+log+"\nexec "+real+" \"$@\"\n"), 0o755))
	r := newRunner(t, WithBinary(bin))
	ws := Workspace{Tenant: "acme", Name: "handles"}
	calls := func() []string {
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		require.NoError(t, err)
		return strings.Fields(string(b))
	}
	count := func(word string) (n int) {
		for _, c := range calls() {
			if c == word {
				n++
			}
		}
		return n
	}

	st, err := r.State(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, State{Resources: []Resource{}, Outputs: map[string]any{}}, st, "no state yet")

	ready(t, r, ws, dbOutputs())
	plan, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, plan)
	require.NoError(t, err)
	before := len(calls())
	st, err = r.State(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, []Resource{{Address: "terraform_data.db", Type: "terraform_data", Name: "db"}}, st.Resources)
	require.Equal(t, map[string]any{"host": "db.internal", "password": SensitiveOutput}, st.Outputs)
	require.Positive(t, st.Serial)
	require.Equal(t, []string{"show", "state"}, calls()[before:], "State is one show -json and one state pull")
	// The plan's show runs while the plan's handle is held: a second handle, asked once too.
	require.Equal(t, 2, count("version"), "init, plan, the plan's show, apply and State: %v", calls())
	plan, err = r.Plan(ctx, ws, "p2", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, plan)
	require.NoError(t, err)
	_, err = r.State(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, 2, count("version"), "a second plan, apply and State asked no version: %v", calls())

	// An engine replaced in place (its modification time) is asked its version again.
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(bin, later, later))
	_, err = r.Outputs(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, 3, count("version"), "%v", calls())
}
