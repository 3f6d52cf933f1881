package gates

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckAcceptsLabelsAndKnownKindsOnly(t *testing.T) {
	for _, ok := range []string{"network", "approved-by-sec", "instance:acme/db"} {
		require.NoError(t, Check(ok), ok)
	}
	bad := map[string]string{
		"Network":         "lowercase label",
		"dns:acme/db":     `unknown gate kind "dns"; the built-in kinds are: instance`,
		"instance:acme":   "instance:TENANT/NAME",
		"instance:Acme/x": "instance:TENANT/NAME",
		"":                "lowercase label",
	}
	for name, msg := range bad {
		require.ErrorContains(t, Check(name), msg, name)
	}
	ref, ok := Instance("instance:acme/db")
	require.True(t, ok)
	require.Equal(t, "acme/db", ref)
	_, ok = Instance("network")
	require.False(t, ok)
	require.Error(t, CheckTimeout("network", -1))
}

// An instance gate's target answers it with its state and failures: only its own tenant's.
func TestCheckTenantRefusesAnotherTenantsInstance(t *testing.T) {
	for _, ok := range []string{"network", "instance:acme/db"} {
		require.NoError(t, CheckTenant("acme", ok), ok)
	}
	require.ErrorContains(t, CheckTenant("other", "instance:acme/db"), `gate "instance:acme/db" names an instance of tenant acme`)
}
