package github

import (
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

func TestContract(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newFake(t)
		return f
	})
}

// A page size of one makes every list call of the contract follow Link pagination.
func TestContractOnePerPage(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newFake(t)
		f.pageSize = 1
		return f
	})
}
