package names

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeriveKeepsSimpleRefsReadable(t *testing.T) {
	assert.Equal(t, Names{Namespace: "live-web", Application: "live-web", Schema: "slipway_live_web"}, Derive("live", "web"))
	assert.Equal(t, Legacy("acme", "web"), Derive("acme", "web"), "a hyphen-free short ref keeps the name it always had")
}

// The pair of issue 12: the old rule gave both the same namespace, Application and schema.
func TestDeriveSeparatesTheCollidingPair(t *testing.T) {
	ab, bc := Derive("a-b", "c"), Derive("a", "b-c")
	require.Equal(t, Legacy("a-b", "c"), Legacy("a", "b-c"), "the defect: the old rule collides")
	assert.Equal(t, "a-b-c--"+Hash("a-b", "c"), ab.Namespace)
	assert.Equal(t, "a-b-c--"+Hash("a", "b-c"), bc.Namespace)
	assert.Equal(t, "slipway_a_b_c__"+Hash("a-b", "c"), ab.Schema)
	assert.NotEqual(t, ab.Namespace, bc.Namespace)
	assert.NotEqual(t, ab.Application, bc.Application)
	assert.NotEqual(t, ab.Schema, bc.Schema)
	for _, n := range []Names{ab, bc} {
		require.NoError(t, n.Validate())
	}
}

func TestDeriveAtTheLimits(t *testing.T) {
	t63, n63 := strings.Repeat("t", 63), strings.Repeat("n", 63)
	require.True(t, IsLabel(t63))
	cases := []struct{ tenant, name string }{
		{t63, n63}, {t63, "n"}, {"t", n63}, {t63[:31], n63[:31]}, // 31+1+31 = 63: fits a namespace, not an Application
		{t63[:26], n63[:26]}, // 53: the longest that fits an Application unhashed
		{t63[:27], n63[:27]}, // 55: the longest schema label, just over an Application
		{"a-" + t63[:61], "b-" + n63[:61]}, {strings.Repeat("a-", 31) + "a", strings.Repeat("b-", 31) + "b"},
		{"a--b", "c"}, {"a", "b--c"}, {"0", "0"},
	}
	seen := map[string]string{}
	for _, c := range cases {
		n := Derive(c.tenant, c.name)
		ref := c.tenant + "/" + c.name
		require.NoError(t, n.Validate(), ref)
		require.LessOrEqual(t, len(n.Namespace), MaxLabel, ref)
		require.LessOrEqual(t, len(n.Application), MaxApplication, ref)
		require.LessOrEqual(t, len(n.Schema), MaxIdentifier, ref)
		for _, cl := range n.Claims() {
			other, dup := seen[cl.String()]
			require.False(t, dup, "%s and %s share %s", ref, other, cl)
			seen[cl.String()] = ref
		}
	}
	exact := Derive(t63[:31], n63[:31])
	assert.Equal(t, t63[:31]+"-"+n63[:31], exact.Namespace, "63 characters fit a namespace unchanged")
	assert.True(t, strings.HasSuffix(exact.Application, "--"+Hash(t63[:31], n63[:31])), "but not an Application")
	widest := Derive(t63[:27], n63[:27])
	assert.Equal(t, "slipway_"+t63[:27]+"_"+n63[:27], widest.Schema, "a 63-character schema needs no hash")
	assert.Len(t, widest.Schema, MaxIdentifier)
	long := Derive(t63, n63)
	assert.Len(t, long.Namespace, MaxLabel)
	assert.Len(t, long.Application, MaxApplication)
	assert.Len(t, long.Schema, MaxIdentifier)
	assert.True(t, strings.HasPrefix(long.Namespace, t63[:51]), "the prefix keeps it readable")
}

// Legacy must give exactly what the three functions it replaces gave (recorded before removing them).
func TestLegacyIsTheOldRule(t *testing.T) {
	t40, n40 := strings.Repeat("t", 40), strings.Repeat("n", 40)
	a63, b63 := strings.Repeat("a", 63), strings.Repeat("b", 63)
	x30, y30 := strings.Repeat("x", 30), strings.Repeat("y", 30)
	cases := []struct {
		tenant, name string
		want         Names
	}{
		{"acme", "web", Names{Namespace: "acme-web", Application: "acme-web", Schema: "slipway_acme_web"}},
		{"a-b", "c", Names{Namespace: "a-b-c", Application: "a-b-c", Schema: "slipway_a_b_c"}},
		{"a", "b-c", Names{Namespace: "a-b-c", Application: "a-b-c", Schema: "slipway_a_b_c"}},
		{"demo", "web-1", Names{Namespace: "demo-web-1", Application: "demo-web-1", Schema: "slipway_demo_web_1"}},
		{t40, n40, Names{Namespace: t40 + "-" + n40[:13] + "-289cbf6b", Application: t40 + "-nnn-289cbf6b", Schema: "slipway_" + t40 + "_" + n40}},
		{a63, b63, Names{Namespace: a63[:54] + "-278079d6", Application: a63[:44] + "-278079d6", Schema: "slipway_" + a63 + "_" + b63}},
		{x30, y30, Names{Namespace: x30 + "-" + y30, Application: x30 + "-" + y30[:13] + "-ebc57854", Schema: "slipway_" + x30 + "_" + y30}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Legacy(c.tenant, c.name), "%s/%s", c.tenant, c.name)
	}
}

func TestClaimsNameTheirSystem(t *testing.T) {
	cl := Derive("acme", "web").Claims()
	require.Len(t, cl, 3)
	assert.Equal(t, "kubernetes namespace acme-web", cl[0].String())
	assert.Equal(t, "ArgoCD application acme-web", cl[1].String())
	assert.Equal(t, "PostgreSQL schema slipway_acme_web", cl[2].String())
	err := Names{Namespace: "Bad", Application: "x", Schema: "slipway_x"}.Validate()
	assert.ErrorContains(t, err, "kubernetes namespace Bad")
}
