package mirror

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// A mirrored forge asks the forge what a user may do (the mirror knows no users); over a forge
// that cannot say, it names no issuer, so no commenter is vouched for.
func TestPermissionsAreTheForgesNeverTheMirrors(t *testing.T) {
	ctx := context.Background()
	gh := fakegithub.New(t)
	gh.AddRepo("acme", "gitops", "main")
	id := gh.Grant("acme", "gitops", "alice", "write")
	primary, err := github.New("acme", "gitops", github.WithBaseURL(gh.URL), github.WithToken(gh.Token))
	require.NoError(t, err)
	mirrored, err := localgit.Init(filepath.Join(t.TempDir(), "mirror"), map[string][]byte{"README": []byte("x")})
	require.NoError(t, err)

	m := New(primary, mirrored)
	assert.Equal(t, "github", m.Issuer())
	u, p, err := m.Permission(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, forge.User{ID: strconv.FormatInt(id, 10), Login: "alice"}, u)
	assert.Equal(t, forge.PermissionWrite, p)

	local, err := localgit.Init(filepath.Join(t.TempDir(), "primary"), map[string][]byte{"README": []byte("x")})
	require.NoError(t, err)
	blind := New(local, mirrored)
	assert.Empty(t, blind.Issuer())
	_, p, err = blind.Permission(ctx, "alice")
	require.Error(t, err)
	assert.Equal(t, forge.PermissionNone, p)
}
