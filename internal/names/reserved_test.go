package names

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReservedRefusesSystemNamesAndTheirTenants(t *testing.T) {
	r, err := ParseReserved(" monitoring, prod-* ,")
	require.NoError(t, err)
	refused := map[string]string{
		"kube/system":       "TENANT/NAME kube/system: kubernetes namespace kube-system is reserved (kube-*); choose another name",
		"kube/public":       "kubernetes namespace kube-public is reserved (kube-*)",
		"kube-x/y":          "tenant kube-x is reserved (kube-*)",
		"default/x":         "tenant default is reserved (default)",
		"argocd/apps":       "tenant argocd is reserved (argocd)",
		"slipway/worker":    "tenant slipway is reserved (slipway)",
		"monitoring/grafan": "tenant monitoring is reserved (monitoring)",
		"prod-eu/db":        "tenant prod-eu is reserved (prod-*)",
		"prod/db":           "kubernetes namespace prod-db is reserved (prod-*)",
		"argocd-x/y":        "tenant argocd-x is reserved (argocd)",
	}
	for ref, want := range refused {
		tenant, name, _ := strings.Cut(ref, "/")
		err := r.Check(tenant, name)
		var re *ReservedError
		require.ErrorAs(t, err, &re, ref)
		assert.Contains(t, err.Error(), want, ref)
		assert.Equal(t, ref, re.Ref)
	}
	for _, ref := range []string{"acme/web", "defaults/x", "kubex/y", "monitor/ing", "argo/web", "a/kube-system", "productive/x"} {
		tenant, name, _ := strings.Cut(ref, "/")
		assert.NoError(t, r.Check(tenant, name), ref)
	}
	var zero Reserved
	assert.Error(t, zero.Check("kube", "system"), "the zero value holds the defaults")
	assert.NoError(t, zero.Check("monitoring", "x"))
}

func TestParseReservedNamesTheVariable(t *testing.T) {
	for _, bad := range []string{"Kube", "a b", "*", "x/y", "-a"} {
		_, err := ParseReserved(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), EnvReserved)
	}
	r, err := ReservedFromEnv(func(k string) string { return map[string]string{EnvReserved: "team-a"}[k] })
	require.NoError(t, err)
	assert.Equal(t, append(append([]string{}, DefaultReserved...), "team-a"), r.Entries())
}

// The old rule cut a long ref to 54 (namespace) or 44 (Application) characters and added
// "-<8 hex>"; the new rule gives exactly that to the ref <prefix>/<8 hex>, so that shape is refused.
func TestReservedRefusesTheShapeOfALegacyName(t *testing.T) {
	victim := Legacy(strings.Repeat("v", 60), "web")
	for _, name := range []string{victim.Namespace, victim.Application} {
		tenant, hash, _ := strings.Cut(name, "-")
		require.Equal(t, name, map[bool]string{true: Derive(tenant, hash).Namespace, false: Derive(tenant, hash).Application}[name == victim.Namespace])
		err := Reserved{}.Check(tenant, hash)
		require.ErrorContains(t, err, "the shape of a legacy name", name)
	}
	assert.NoError(t, Reserved{}.Check(strings.Repeat("v", 54), "web"), "an 8-hex name only")
	assert.NoError(t, Reserved{}.Check(strings.Repeat("v", 53), "deadbeef"), "at the cut lengths only")
	assert.NoError(t, Reserved{}.Check("acme", "20261124"))
}
