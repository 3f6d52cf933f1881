package names

import (
	"strings"
	"testing"
)

// FuzzDeriveInjective: two valid refs share a derived name only if they are the same ref. Each
// name must also decode back to its own ref (split at the one hyphen, or end in its hash), which
// is why one input is enough to find a rule that merges refs.
func FuzzDeriveInjective(f *testing.F) {
	f.Add("a-b", "c", "a", "b-c")
	f.Add("live", "web", "live", "web")
	f.Add(strings.Repeat("t", 63), strings.Repeat("n", 63), strings.Repeat("t", 63), strings.Repeat("n", 62)+"m")
	f.Fuzz(func(t *testing.T, t1, n1, t2, n2 string) {
		if !IsLabel(t1) || !IsLabel(n1) || !IsLabel(t2) || !IsLabel(n2) {
			t.Skip()
		}
		a, b := Derive(t1, n1), Derive(t2, n2)
		for _, in := range []struct {
			tenant, name string
			n            Names
		}{{t1, n1, a}, {t2, n2, b}} {
			if err := in.n.Validate(); err != nil {
				t.Fatalf("%s/%s: %v", in.tenant, in.name, err)
			}
			for _, name := range []string{in.n.Namespace, in.n.Application, strings.ReplaceAll(strings.TrimPrefix(in.n.Schema, SchemaPrefix), "_", "-")} {
				if !decodes(name, in.tenant, in.name) {
					t.Fatalf("%s/%s: %q does not decode back to its ref", in.tenant, in.name, name)
				}
			}
		}
		same := t1 == t2 && n1 == n2
		if a.Namespace == b.Namespace && !same {
			t.Fatalf("%s/%s and %s/%s share namespace %s", t1, n1, t2, n2, a.Namespace)
		}
		if a.Application == b.Application && !same {
			t.Fatalf("%s/%s and %s/%s share Application %s", t1, n1, t2, n2, a.Application)
		}
		if a.Schema == b.Schema && !same {
			t.Fatalf("%s/%s and %s/%s share schema %s", t1, n1, t2, n2, a.Schema)
		}
	})
}

// decodes reports whether name is tenant-name with one hyphen, or ends in the hash of tenant/name.
func decodes(name, tenant, n string) bool {
	if strings.Contains(name, "--") {
		return strings.HasSuffix(name, "--"+Hash(tenant, n))
	}
	t, rest, _ := strings.Cut(name, "-")
	return t == tenant && rest == n
}
