package activities

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/steps"
)

// Workflows call activities by name; every name must be a method of Activities.
func TestEveryActivityNameIsAMethod(t *testing.T) {
	typ := reflect.TypeOf(&Activities{})
	for _, name := range steps.AllActivities {
		_, ok := typ.MethodByName(name)
		require.True(t, ok, "steps.%s has no Activities method", name)
	}
	require.Equal(t, len(steps.AllActivities), typ.NumMethod(), "an exported method is missing from steps.AllActivities")
}
