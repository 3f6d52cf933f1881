package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaPlacement(t *testing.T) {
	s, err := ParseSchema([]byte("placement:\n  clusters: [in-cluster, edge]\n  selector:\n    matchLabels: {tier: edge, example.com/region: eu-1}\n"))
	require.NoError(t, err)
	require.Equal(t, Placement{Clusters: []string{"in-cluster", "edge"}, Selector: map[string]string{"tier": "edge", "example.com/region": "eu-1"}}, s.Placement)

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	require.True(t, none.Placement.IsZero(), "a stack without placement: stays on argocd:'s one cluster")

	for _, tc := range []struct{ yaml, msg string }{
		{"placement: edge", "schema.placement: must be a mapping with keys clusters, selector"},
		{"placement: {}", "schema.placement: must name clusters or a selector"},
		{"placement: {clusters: []}", "schema.placement.clusters: must be a non-empty list"},
		{"placement: {clusters: ['a b']}", `schema.placement.clusters: "a b" must be a cluster name`},
		{"placement: {clusters: [edge, edge]}", `schema.placement.clusters: names "edge" twice`},
		{"placement: {clusters: [Prod_EU, prod-eu]}", `schema.placement.clusters: names "Prod_EU" and "prod-eu", whose Applications would have the same name (<app>-prod-eu)`},
		{"placement: {selector: {tier: edge}}", "schema.placement.selector.tier: unknown field"},
		{"placement: {selector: {matchLabels: {}}}", "schema.placement.selector.matchLabels: must be a non-empty mapping"},
		{"placement: {selector: {matchLabels: {'bad key!': x}}}", "schema.placement.selector.matchLabels.bad key!: must be a Kubernetes label key"},
		{"placement: {selector: {matchLabels: {tier: 'a b'}}}", `schema.placement.selector.matchLabels.tier: "a b" must be a Kubernetes label value`},
		{"placement: {zones: [a]}", "schema.placement.zones: unknown field"},
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}

func TestInstancePlacement(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: example\nplacement:\n  clusters: [edge]\n"))
	require.NoError(t, err)
	require.Equal(t, Placement{Clusters: []string{"edge"}}, inst.Placement)
	_, err = ParseInstance([]byte("stack: example\nplacement: {selector: {matchLabels: {tier: ''}}}\nextra: 1\n"))
	require.ErrorContains(t, err, "extra: unknown field")
	_, err = ParseInstance([]byte("stack: example\nplacement: {clusters: x}\n"))
	require.ErrorContains(t, err, "placement.clusters: must be a non-empty list")
}

// An instance's placement survives the canonical file the render commits: without it, the
// instance's own placement never reached main and its app stayed where its stack put it.
func TestInstancePlacementIsCanonical(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: example\nplacement:\n  selector: {matchLabels: {tier: edge, a: b}}\n  clusters: [in-cluster, Edge]\n"))
	require.NoError(t, err)
	out := inst.Canonical()
	again, err := ParseInstance(out)
	require.NoError(t, err, string(out))
	require.Equal(t, inst.Placement, again.Placement, string(out))
	require.Contains(t, string(out), "placement:\n  clusters: [in-cluster, Edge]\n  selector:\n    matchLabels:\n      a: b\n      tier: edge\n")
	plain, err := ParseInstance([]byte("stack: example\n"))
	require.NoError(t, err)
	require.NotContains(t, string(plain.Canonical()), "placement", "nothing when unset")
}
