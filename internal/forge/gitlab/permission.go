package gitlab

import (
	"context"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Permissions = (*Forge)(nil)

// Permission asks GitLab what username may do in the project: the user by GET /users?username=,
// then its access level, inherited included, by GET /projects/:id/members/all/:user_id
// (developer is write; maintainer and owner are admin; reporter and below read; not a member none).
func (f *Forge) Permission(ctx context.Context, login string) (forge.User, forge.Permission, error) {
	if err := forge.CheckLogin(login); err != nil {
		return forge.User{}, forge.PermissionNone, err
	}
	users, resp, err := f.client.Users.ListUsers(&gl.ListUsersOptions{Username: gl.Ptr(login)}, gl.WithContext(ctx))
	if err != nil {
		return forge.User{}, forge.PermissionNone, f.translate("find user "+login, "user "+login, resp, err)
	}
	var found *gl.User
	for _, u := range users {
		if u.Username == login {
			found = u
		}
	}
	if found == nil {
		return forge.User{}, forge.PermissionNone, &forge.NotFoundError{What: "GitLab user " + login}
	}
	u := forge.User{ID: strconv.FormatInt(int64(found.ID), 10), Login: found.Username}
	m, resp, err := f.client.ProjectMembers.GetInheritedProjectMember(f.project, int64(found.ID), gl.WithContext(ctx))
	switch {
	case status(resp) == 404:
		return u, forge.PermissionNone, nil
	case err != nil:
		return u, forge.PermissionNone, f.translate("member "+login, "member "+login, resp, err)
	case m.AccessLevel >= gl.MaintainerPermissions:
		return u, forge.PermissionAdmin, nil
	case m.AccessLevel >= gl.DeveloperPermissions:
		return u, forge.PermissionWrite, nil
	case m.AccessLevel > gl.NoPermissions:
		return u, forge.PermissionRead, nil
	}
	return u, forge.PermissionNone, nil
}

// Issuer is "gitlab".
func (f *Forge) Issuer() string { return "gitlab" }
