package client_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// The registration script (which compose runs) must register exactly the declared list.
func TestRegistrationScriptMatchesTheDeclaredSearchAttributes(t *testing.T) {
	script, err := os.ReadFile("../../deploy/temporal/search-attributes.sh")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)\nspecs="([^"]*)"`).FindSubmatch(script)
	require.NotNil(t, m, "the script's specs= list")
	got := map[string]string{}
	for _, spec := range strings.Fields(string(m[1])) {
		name, typ, ok := strings.Cut(spec, ":")
		require.True(t, ok, "spec %q is NAME:TYPE", spec)
		got[name] = typ
	}
	require.Equal(t, contract.SearchAttributeTypes, got)

	compose, err := os.ReadFile("../../docker-compose.yml")
	require.NoError(t, err)
	require.Contains(t, string(compose), "./deploy/temporal/search-attributes.sh:", "compose runs the same script")
}
