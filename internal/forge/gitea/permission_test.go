package gitea

import (
	"context"
	"strconv"
	"testing"

	sdk "code.gitea.io/sdk/gitea"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// The permission contract on a real Gitea: accounts made through its admin API, granted as
// collaborators, read back through GET /repos/{owner}/{repo}/collaborators/{user}/permission.
func TestPermissions(t *testing.T) {
	s := giteaserver.Shared(t)
	forgetest.Permissions(t, func(t *testing.T) (forge.Permissions, forgetest.Grant) {
		f := newRepo(t, s)
		return f, func(t *testing.T, login string, p forge.Permission) forge.User {
			ctx := context.Background()
			c := f.client(ctx)
			u, _, err := c.GetUserInfo(login)
			if err != nil {
				no := false
				u, _, err = c.AdminCreateUser(sdk.CreateUserOption{Username: login, Email: login + "@example.test",
					Password: "pw-" + login + "-123456", MustChangePassword: &no})
				require.NoError(t, err)
			}
			modes := map[forge.Permission]sdk.AccessMode{forge.PermissionRead: sdk.AccessModeRead,
				forge.PermissionWrite: sdk.AccessModeWrite, forge.PermissionAdmin: sdk.AccessModeAdmin}
			if mode, ok := modes[p]; ok {
				_, err := c.AddCollaborator(f.owner, f.repo, login, sdk.AddCollaboratorOption{Permission: &mode})
				require.NoError(t, err)
			}
			return forge.User{ID: strconv.FormatInt(u.ID, 10), Login: u.UserName}
		}
	})
}
