package names

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
)

// Legacy is the rule before names were recorded, kept so that instances provisioned then keep
// their namespace, Application and schema. It is not injective: a-b/c and a/b-c share all three.
func Legacy(tenant, name string) Names {
	return Names{
		Namespace:   legacyNamespace(tenant, name),
		Application: legacyApplication(tenant, name),
		Schema:      legacySchema(tenant, name),
	}
}

// legacyNamespace was contract.Ref.Namespace: "<tenant>-<name>", cut and ending in a hash when
// longer than a label.
func legacyNamespace(tenant, name string) string {
	ns := tenant + "-" + name
	if len(ns) <= MaxLabel {
		return ns
	}
	sum := sha256.Sum256([]byte(tenant + "/" + name))
	suffix := hex.EncodeToString(sum[:])[:8]
	prefix := strings.TrimRight(ns[:MaxLabel-len(suffix)-1], "-")
	return prefix + "-" + suffix
}

// legacyApplication was argocd.AppName: "<tenant>-<name>", cut and ending in a hash when
// longer than 53 characters (or not already a label).
func legacyApplication(tenant, name string) string {
	full := strings.ToLower(tenant + "-" + name)
	n := strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			return r
		}
		return '-'
	}, full)
	n = strings.Trim(n, "-")
	if len(n) <= MaxApplication && n == full {
		return n
	}
	sum := sha256.Sum256([]byte(tenant + "/" + name))
	suffix := hex.EncodeToString(sum[:])[:8]
	if len(n) > MaxApplication-len(suffix)-1 {
		n = n[:MaxApplication-len(suffix)-1]
	}
	return strings.TrimRight(n, "-") + "-" + suffix
}

// legacySchema was terraform.SchemaName: slipway_<tenant>_<name> with '-' → '_', never cut
// (the terraform runner refused one longer than an identifier).
func legacySchema(tenant, name string) string {
	return SchemaPrefix + strings.ReplaceAll(tenant, "-", "_") + "_" + strings.ReplaceAll(name, "-", "_")
}

// legacyCut are the prefix lengths the old rule cut a long namespace and Application to
// before "-<8 hex>" (legacyNamespace, legacyApplication).
var legacyCut = []int{MaxLabel - 9, MaxApplication - 9}

var hex8 = regexp.MustCompile(`^[0-9a-f]{8}$`)

// LegacyShaped reports whether the ref derives, unhashed, a name of the shape the old rule gave
// a long ref: "<its first 54 (or 44) characters>-<8 hex>". Some existing instance may hold that
// name without having claimed it yet (it claims at its next request), and that ref is
// public, so a new ref of this shape is refused rather than checked.
func LegacyShaped(tenant, name string) bool {
	return hex8.MatchString(name) && !strings.Contains(tenant, "-") && slices.Contains(legacyCut, len(tenant))
}
