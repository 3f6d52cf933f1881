package gitea

import (
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

func TestContract(t *testing.T) {
	s := giteaserver.Shared(t)
	forgetest.Contract(t, func(t *testing.T) forge.Forge { return newRepo(t, s) })
}
