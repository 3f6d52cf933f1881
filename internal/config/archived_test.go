package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The archive's config change adds archived: true and keeps the rest of the file, comments too;
// the field parses as a bool and nothing else, and a config people deploy may not set it.
func TestMarkArchived(t *testing.T) {
	got, err := MarkArchived([]byte("# the shop\nstack: web\nparameters:\n  greeting: hi # kept\n"))
	require.NoError(t, err)
	assert.Equal(t, "# the shop\nstack: web\nparameters:\n  greeting: hi # kept\narchived: true\n", string(got))
	inst, err := ParseInstance(got)
	require.NoError(t, err)
	assert.True(t, inst.Archived)
	require.ErrorContains(t, RefuseArchived(inst), "archived: is written by slipway's archive")

	again, err := MarkArchived([]byte("stack: web\nparameters: {}\narchived: false\n"))
	require.NoError(t, err)
	assert.Equal(t, "stack: web\nparameters: {}\narchived: true\n", string(again), "set, not added twice")

	_, err = ParseInstance([]byte("stack: web\narchived: yes please\n"))
	require.ErrorContains(t, err, "archived: must be true or false")
	_, err = MarkArchived([]byte("parameters: {}\n"))
	require.ErrorContains(t, err, "stack", "a file that is not an instance file is not marked")

	plain, err := ParseInstance([]byte("stack: web\n"))
	require.NoError(t, err)
	require.NoError(t, RefuseArchived(plain))
	assert.NotContains(t, string(plain.Canonical()), "archived")
}
