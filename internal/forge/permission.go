package forge

import (
	"context"
	"slices"
	"strings"
)

// Permission is what a forge user may do in the GitOps repository, in the words GitHub uses;
// each backend maps its own roles onto it.
type Permission string

const (
	PermissionNone  Permission = "none"
	PermissionRead  Permission = "read"
	PermissionWrite Permission = "write"
	PermissionAdmin Permission = "admin"
)

var permissionOrder = []Permission{PermissionNone, PermissionRead, PermissionWrite, PermissionAdmin}

// AtLeast reports whether p grants at least q; an unknown permission grants nothing.
func (p Permission) AtLeast(q Permission) bool {
	return max(slices.Index(permissionOrder, p), 0) >= slices.Index(permissionOrder, q)
}

// User is an account as its forge's API knows it: ID is the forge's stable user ID (a login
// can be renamed and then taken by someone else), Login the name people see.
type User struct {
	ID    string `json:"id"`
	Login string `json:"login"`
}

// Permissions is a forge that can say, through its API, what a user may do in the
// repository: what a webhook payload claims about its sender is checked here.
type Permissions interface {
	// Issuer names who vouches for the user IDs: "github", "gitlab", or "gitea:<base URL>".
	Issuer() string
	// Permission returns the account login names and its permission on the repository. An
	// existing user without access is PermissionNone; an unknown login is a *NotFoundError.
	Permission(ctx context.Context, login string) (User, Permission, error)
}

// CheckLogin refuses a login that could not name one account (empty, a path, whitespace),
// before it reaches a URL.
func CheckLogin(login string) error {
	if login == "" || len(login) > 255 || strings.ContainsAny(login, "/?#%\\ \t\r\n") {
		return &InvalidError{Field: "login", Value: login, Problem: "must be a forge user name without /, ?, #, %, \\ or whitespace"}
	}
	return nil
}
