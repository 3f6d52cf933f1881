package gitlab

import (
	"strconv"
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

func TestPermissions(t *testing.T) {
	levels := map[forge.Permission]int{forge.PermissionNone: 0, forge.PermissionRead: 20, forge.PermissionWrite: 30, forge.PermissionAdmin: 40}
	forgetest.Permissions(t, func(t *testing.T) (forge.Permissions, forgetest.Grant) {
		f, srv := newFake(t)
		return f, func(t *testing.T, login string, p forge.Permission) forge.User {
			return forge.User{ID: strconv.Itoa(srv.AddMember(login, levels[p])), Login: login}
		}
	})
}
