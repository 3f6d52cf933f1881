package secrets

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnsureCreatesOnceAndKeepsValues(t *testing.T) {
	ctx := context.Background()
	s := NewStore(t.TempDir())
	created, err := s.Ensure(ctx, "acme", "web", []string{"api_key", "admin_password"})
	require.NoError(t, err)
	require.Equal(t, []string{"admin_password", "api_key"}, created)
	first, err := s.Get(ctx, "acme", "web")
	require.NoError(t, err)
	require.Len(t, first["admin_password"], 43, "32 random bytes, base64url")
	require.NotEqual(t, first["admin_password"], first["api_key"])

	created, err = s.Ensure(ctx, "acme", "web", []string{"admin_password", "api_key", "token"})
	require.NoError(t, err)
	require.Equal(t, []string{"token"}, created, "a retry never regenerates")
	again, err := s.Get(ctx, "acme", "web")
	require.NoError(t, err)
	require.Equal(t, first["admin_password"], again["admin_password"])

	info, err := os.Stat(s.path("acme", "web"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	require.NoError(t, s.Forget(ctx, "acme", "web"))
	require.NoError(t, s.Forget(ctx, "acme", "web"), "forgetting twice is fine")
	gone, err := s.Get(ctx, "acme", "web")
	require.NoError(t, err)
	require.Empty(t, gone)
}

func TestCorruptStoreIsAnError(t *testing.T) {
	ctx := context.Background()
	s := NewStore(t.TempDir())
	require.NoError(t, os.MkdirAll(s.dir+"/acme", 0o700))
	require.NoError(t, os.WriteFile(s.path("acme", "web"), []byte("{"), 0o600))
	_, err := s.Get(ctx, "acme", "web")
	require.ErrorContains(t, err, "corrupt")
}
