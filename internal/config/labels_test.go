package config

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Instance labels are checked as Kubernetes label keys and values, name the field when wrong,
// and survive the canonical encoding a deploy renders.
func TestInstanceLabelsAreCheckedAndKept(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: web\nlabels: {tier: gold, example.com/region: eu, empty: \"\"}\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"tier": "gold", "example.com/region": "eu", "empty": ""}, inst.Labels)
	again, err := ParseInstance(inst.Canonical())
	require.NoError(t, err)
	require.Equal(t, inst.Labels, again.Labels)

	for file, want := range map[string]string{
		"labels: {tier: gold gold}\n": `labels.tier: "gold gold" must be at most 63 characters`,
		"labels: {-tier: gold}\n":     `labels.-tier: key "-tier" must be at most 63 characters`,
		"labels: {Bad_/x: gold}\n":    `labels.Bad_/x: key "Bad_/x": the prefix before / must be a DNS subdomain`,
		"labels: {tier: [gold]}\n":    "labels.tier: must be a string",
		"labels: [tier]\n":            "labels: must be a mapping of key: value",
		"labels: {tier: ~}\n":         "labels.tier: must be a string",
	} {
		_, err := ParseInstance([]byte("stack: web\n" + file))
		require.ErrorContains(t, err, want, file)
	}
}

// The instance file a render commits keeps the labels: rollouts and later operations read them from main.
func TestRenderKeepsTheLabels(t *testing.T) {
	st := testStack(t, renderFiles)
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 2, "replicas": 3}, Labels: map[string]string{"tier": "gold"}}
	out, err := Render(contract.Ref{Tenant: "acme", Name: "web"}, "acme-web", st, inst)
	require.NoError(t, err)
	back, err := ParseInstance(out[InstanceFile])
	require.NoError(t, err)
	require.Equal(t, inst.Labels, back.Labels)
}
