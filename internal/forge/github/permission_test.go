package github

import (
	"strconv"
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

func TestPermissions(t *testing.T) {
	forgetest.Permissions(t, func(t *testing.T) (forge.Permissions, forgetest.Grant) {
		f, srv := newFake(t)
		return f, func(t *testing.T, login string, p forge.Permission) forge.User {
			return forge.User{ID: strconv.FormatInt(srv.Grant(testOwner, testRepo, login, string(p)), 10), Login: login}
		}
	})
}
