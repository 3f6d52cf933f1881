package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Label keys, values and cluster names keep Kubernetes' and ArgoCD's lengths and characters.
func TestLabelAndClusterNamesKeepTheirBounds(t *testing.T) {
	for k, want := range map[string]bool{
		"tier": true, "example.com/tier": true, "a/b": true,
		strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63): true,
		strings.Repeat("a", 254) + "/b":                          false, "a/" + strings.Repeat("b", 64): false, strings.Repeat("b", 64): false,
		"": false, "/tier": false, "a//b": false, "a/b/c": false, "Example.com/tier": false, "-tier": false, "tier-": false,
		"a.b-/tier": false, "ti er": false, "tier\n": false,
	} {
		assert.Equal(t, want, validLabelKey(k), "key %q", k)
	}
	for v, want := range map[string]bool{
		"": true, "edge": true, "Edge_1.2-x": true, strings.Repeat("v", 63): true,
		strings.Repeat("v", 64): false, "-edge": false, "edge.": false, "a/b": false, "ed ge": false,
	} {
		assert.Equal(t, want, validLabelValue(v), "value %q", v)
	}
	for c, want := range map[string]bool{
		"in-cluster": true, "Prod_EU.1": true, strings.Repeat("c", 253): true,
		strings.Repeat("c", 254): false, "": false, "-x": false, "a b": false, "a\tb": false,
	} {
		assert.Equal(t, want, validArgoCluster(c), "cluster %q", c)
	}
}
