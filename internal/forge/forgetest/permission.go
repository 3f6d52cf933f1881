package forgetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Grant makes login an account of the backend with permission p on the repository the forge
// serves (PermissionNone: an account with no grant at all) and returns it as the backend knows it.
type Grant func(t *testing.T, login string, p forge.Permission) forge.User

// Permissions runs the forge.Permissions contract as subtests: what the forge's API says a user
// may do is what the caller gets, keyed by the forge's user ID.
func Permissions(t *testing.T, newForge func(t *testing.T) (forge.Permissions, Grant)) {
	ctx := context.Background()
	t.Run("Granted", func(t *testing.T) {
		f, grant := newForge(t)
		for login, p := range map[string]forge.Permission{"writer": forge.PermissionWrite, "owner": forge.PermissionAdmin, "reader": forge.PermissionRead} {
			want := grant(t, login, p)
			u, got, err := f.Permission(ctx, login)
			require.NoError(t, err, login)
			assert.Equal(t, p, got, login)
			assert.Equal(t, want, u, "%s: the forge's own ID and login", login)
			assert.NotEmpty(t, u.ID, login)
		}
	})
	t.Run("NoGrantCannotWrite", func(t *testing.T) {
		f, grant := newForge(t)
		want := grant(t, "stranger", forge.PermissionNone)
		u, got, err := f.Permission(ctx, "stranger")
		require.NoError(t, err)
		assert.Equal(t, want, u)
		assert.False(t, got.AtLeast(forge.PermissionWrite), "an account with no grant may not write (got %s)", got)
	})
	t.Run("UnknownLogin", func(t *testing.T) {
		f, _ := newForge(t)
		_, got, err := f.Permission(ctx, "nobody-by-this-name")
		var nf *forge.NotFoundError
		require.True(t, errors.As(err, &nf), "want *forge.NotFoundError, got %v", err)
		assert.True(t, forge.IsNonRetryable(err))
		assert.Equal(t, forge.PermissionNone, got)
	})
	t.Run("BadLogin", func(t *testing.T) {
		f, _ := newForge(t)
		for _, login := range []string{"", "a/b", "../x", "a b", "x?y"} {
			_, got, err := f.Permission(ctx, login)
			assertInvalid(t, err, "login", "login "+login)
			assert.Equal(t, forge.PermissionNone, got)
		}
	})
}
