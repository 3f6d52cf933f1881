package gitea

import (
	"context"
	"errors"
	"strconv"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Permissions = (*Forge)(nil)

// Permission asks Gitea what login may do in the repository
// (GET /repos/{owner}/{repo}/collaborators/{user}/permission); the token must be a repo admin's.
func (f *Forge) Permission(ctx context.Context, login string) (forge.User, forge.Permission, error) {
	if err := forge.CheckLogin(login); err != nil {
		return forge.User{}, forge.PermissionNone, err
	}
	res, resp, err := f.client(ctx).CollaboratorPermission(f.owner, f.repo, login)
	if err != nil {
		return forge.User{}, forge.PermissionNone, classify("permission of "+login, "user "+login+" on "+f.repoWhat(), resp, err)
	}
	if res == nil || res.User == nil || res.User.ID == 0 {
		return forge.User{}, forge.PermissionNone, &APIError{Op: "permission of " + login, Err: errors.New("the answer names no user")}
	}
	u := forge.User{ID: strconv.FormatInt(res.User.ID, 10), Login: res.User.UserName}
	switch res.Permission {
	case sdk.AccessModeOwner, sdk.AccessModeAdmin:
		return u, forge.PermissionAdmin, nil
	case sdk.AccessModeWrite:
		return u, forge.PermissionWrite, nil
	case sdk.AccessModeRead:
		return u, forge.PermissionRead, nil
	}
	return u, forge.PermissionNone, nil
}

// Issuer is "gitea:<base URL>": user IDs are only unique within one Gitea.
func (f *Forge) Issuer() string { return "gitea:" + f.baseURL }
