package names

import (
	"fmt"
	"strings"
)

// EnvReserved is the operator's own reserved names, comma-separated: SLIPWAY_RESERVED_NAMES=monitoring,prod-*.
const EnvReserved = "SLIPWAY_RESERVED_NAMES"

// DefaultReserved are the names no instance may take whatever the operator says: Kubernetes'
// own namespaces, default, and the namespaces ArgoCD and slipway run in. An entry ending in
// '*' is a prefix; any other entry also reserves itself as a tenant ("<entry>-…").
var DefaultReserved = []string{"kube-*", "default", "argocd", "slipway"}

// Reserved is the list a new ref is checked against at create; its zero value is DefaultReserved.
type Reserved struct {
	extra []string
}

// ParseReserved reads the operator's list (EnvReserved's format) on top of DefaultReserved.
// Each entry is a DNS-1123 label, optionally followed by '*'.
func ParseReserved(list string) (Reserved, error) {
	var r Reserved
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if label := strings.TrimSuffix(e, "*"); label == "" || (!IsLabel(label) && !IsLabel(label+"x")) {
			return Reserved{}, fmt.Errorf("%s: %q is not a lowercase DNS-1123 label (optionally ending in *)", EnvReserved, e)
		}
		r.extra = append(r.extra, e)
	}
	return r, nil
}

// ReservedFromEnv is ParseReserved of EnvReserved as getenv reads it.
func ReservedFromEnv(getenv func(string) string) (Reserved, error) {
	return ParseReserved(getenv(EnvReserved))
}

// Entries are every reserved entry, the defaults first.
func (r Reserved) Entries() []string {
	return append(append([]string{}, DefaultReserved...), r.extra...)
}

// Check refuses a new ref whose tenant or derived namespace or Application is reserved: a
// name equal to an entry, inside it ("<entry>-…", which is what the tenant <entry> derives),
// or starting with a '*' entry's prefix. So kube/system (kube-system) and default/x are refused,
// and so is a ref shaped like a legacy name (LegacyShaped).
func (r Reserved) Check(tenant, name string) error {
	n := Derive(tenant, name)
	if LegacyShaped(tenant, name) {
		return &ReservedError{Ref: tenant + "/" + name, What: kindTitles[KindNamespace], Value: n.Namespace,
			Entry: "the shape of a legacy name, <54 or 44 characters>-<8 hex>, which an existing instance may hold"}
	}
	values := []struct{ what, value string }{
		{"tenant", tenant}, {kindTitles[KindNamespace], n.Namespace}, {kindTitles[KindApplication], n.Application},
	}
	for _, e := range r.Entries() {
		for _, v := range values {
			if matchesReserved(v.value, e) {
				return &ReservedError{Ref: tenant + "/" + name, What: v.what, Value: v.value, Entry: e}
			}
		}
	}
	return nil
}

func matchesReserved(value, entry string) bool {
	if prefix, ok := strings.CutSuffix(entry, "*"); ok {
		return strings.HasPrefix(value, prefix)
	}
	return value == entry || strings.HasPrefix(value, entry+"-")
}

// ReservedError is a ref that would take a reserved name.
type ReservedError struct {
	Ref   string // TENANT/NAME
	What  string // "tenant", "kubernetes namespace", "ArgoCD application"
	Value string
	Entry string // the reserved entry it matches
}

func (e *ReservedError) Error() string {
	return fmt.Sprintf("TENANT/NAME %s: %s %s is reserved (%s); choose another name", e.Ref, e.What, e.Value, e.Entry)
}
