package activities

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Workflows call activities by name; every name must be a method of Activities.
func TestEveryActivityNameIsAMethod(t *testing.T) {
	typ := reflect.TypeOf(&Activities{})
	for _, name := range contract.AllActivities {
		_, ok := typ.MethodByName(name)
		require.True(t, ok, "steps.%s has no Activities method", name)
	}
	require.Equal(t, len(contract.AllActivities), typ.NumMethod(), "an exported method is missing from contract.AllActivities")
}
