package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProtectedFromTheInstanceFileOrTheStack(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: web\nprotected: true\n"))
	require.NoError(t, err)
	require.Equal(t, "file", ProtectedBy(nil, inst))
	require.Contains(t, string(inst.Canonical()), "protected: true")

	plain, err := ParseInstance([]byte("stack: web\n"))
	require.NoError(t, err)
	require.Equal(t, "", ProtectedBy(nil, plain))
	schema, err := ParseSchema([]byte("protected: true\n"))
	require.NoError(t, err)
	require.Equal(t, "stack", ProtectedBy(&Stack{Schema: schema}, plain), "the stack protects every instance")

	_, err = ParseInstance([]byte("stack: web\nprotected: yes please\n"))
	require.ErrorContains(t, err, "protected: must be true or false")
	_, err = ParseSchema([]byte("protected: 1\n"))
	require.ErrorContains(t, err, "schema.protected: must be true or false")
}
