package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Permissions = (*Forge)(nil)

// Permission asks GitHub what login may do in the repository
// (GET /repos/{owner}/{repo}/collaborators/{username}/permission: admin, write, read or none;
// maintain and triage fold into write and read there).
func (f *Forge) Permission(ctx context.Context, login string) (forge.User, forge.Permission, error) {
	if err := forge.CheckLogin(login); err != nil {
		return forge.User{}, forge.PermissionNone, err
	}
	lvl, _, err := f.client.Repositories.GetPermissionLevel(ctx, f.owner, f.repo, login)
	switch {
	case err != nil && statusOf(err) == http.StatusNotFound:
		return forge.User{}, forge.PermissionNone, &forge.NotFoundError{What: "github user " + login + " (or repository " + f.fullName() + ")"}
	case err != nil:
		return forge.User{}, forge.PermissionNone, f.classify("permission of "+login, err)
	case lvl.GetUser().GetID() == 0:
		return forge.User{}, forge.PermissionNone, fmt.Errorf("github: permission of %s: %w", login, errors.New("the answer names no user"))
	}
	u := forge.User{ID: strconv.FormatInt(lvl.GetUser().GetID(), 10), Login: lvl.GetUser().GetLogin()}
	switch p := forge.Permission(lvl.GetPermission()); p {
	case forge.PermissionAdmin, forge.PermissionWrite, forge.PermissionRead:
		return u, p, nil
	}
	return u, forge.PermissionNone, nil
}

// Issuer is "github".
func (f *Forge) Issuer() string { return "github" }
