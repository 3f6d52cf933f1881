package gitlab

import (
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

func TestContract(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newFake(t)
		return f
	})
}

// Small pages make every listing in the contract cross page boundaries.
func TestContractPaginated(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newFake(t, fakegitlab.WithMaxPerPage(1))
		return f
	})
}
