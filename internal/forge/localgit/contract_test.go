package localgit

import (
	"testing"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

func TestContract(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newBare(t)
		return f
	})
}

func TestContractNonBare(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newNonBare(t)
		return f
	})
}
