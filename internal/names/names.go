// Package names derives the names an instance TENANT/NAME gets in systems that have one flat
// namespace: its Kubernetes namespace, its ArgoCD Application and its PostgreSQL schema.
//
// The rule (Derive) is injective over valid refs (tenant and name each a DNS-1123 label):
//
//   - when neither part contains '-' and "<tenant>-<name>" fits the system's limit, the name is
//     "<tenant>-<name>": it has exactly one hyphen, so it splits back into the ref;
//   - otherwise it is "<prefix>--<hash>": hash is the first 10 hex digits of SHA-256 of
//     "<tenant>/<name>", and prefix is "<tenant>-<name>" cut to leave room, without trailing '-'.
//
// Names of the first form never contain "--" and names of the second always do, and end in the
// hash of the whole ref; so two refs share a name only if SHA-256 collides in 40 bits, which
// provision refuses (the names are claimed). Examples: acme/web → acme-web; a-b/c →
// a-b-c--<hash>; a/b-c → a-b-c--<another hash>. The schema is "slipway_" and the label rule
// with '-' → '_', a bijection on this charset.
//
// Names are recorded in the instance's state at provision and never recomputed, so an instance
// keeps its names when the rule changes. Instances provisioned before names were recorded keep
// the names of the rule before this one (Legacy), which was not injective.
//
// The other names slipway derives from TENANT/NAME are injective as they are, because a label
// never contains '/': the secret-store key (columns tenant and name in PostgreSQL, or the file
// secrets/<tenant>/<name>.json), the terraform work directory work/<tenant>/<name> (and the
// local state and plan directories tfstate/ and plans/ likewise), the MR branch
// slipway/<tenant>/<name>/<operation>-<opID>, the GitOps directory instances/<tenant>/<name> and
// the workflow ID instance/<tenant>/<name>.
package names

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// Names are an instance's names in the systems that share one flat namespace.
type Names struct {
	Namespace   string `json:"namespace"`
	Application string `json:"application"`
	Schema      string `json:"schema"`
}

// Limits of each system.
const (
	// MaxLabel is the longest DNS-1123 label, and so the longest namespace.
	MaxLabel = 63
	// MaxApplication leaves room under the 63-character label limit ArgoCD's tracking label imposes.
	MaxApplication = 53
	// MaxIdentifier is PostgreSQL's identifier limit; longer names are silently truncated.
	MaxIdentifier = 63
	// SchemaPrefix starts every schema slipway creates.
	SchemaPrefix = "slipway_"
	// hashLen hex digits of SHA-256 (40 bits) end a name that cannot be "<tenant>-<name>".
	hashLen = 10
)

// Derive is the injective rule; new instances get these names.
func Derive(tenant, name string) Names {
	return Names{
		Namespace:   label(tenant, name, MaxLabel),
		Application: label(tenant, name, MaxApplication),
		Schema:      SchemaPrefix + strings.ReplaceAll(label(tenant, name, MaxIdentifier-len(SchemaPrefix)), "-", "_"),
	}
}

// label is "<tenant>-<name>" when that splits back uniquely and fits max; otherwise a
// readable prefix, "--" and the hash of the full ref.
func label(tenant, name string, max int) string {
	full := tenant + "-" + name
	if !strings.Contains(tenant, "-") && !strings.Contains(name, "-") && len(full) <= max {
		return full
	}
	prefix := full
	if n := max - len("--") - hashLen; len(prefix) > n {
		prefix = prefix[:n]
	}
	return strings.TrimRight(prefix, "-") + "--" + Hash(tenant, name)
}

// Hash is the short hash of the full ref that ends every hashed name.
func Hash(tenant, name string) string {
	sum := sha256.Sum256([]byte(tenant + "/" + name))
	return hex.EncodeToString(sum[:])[:hashLen]
}

var labelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// LabelRule says what IsLabel takes, for error messages.
const LabelRule = "must be a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)"

// IsLabel reports whether s is a DNS-1123 label: what tenants, names and namespaces must be.
func IsLabel(s string) bool { return len(s) <= MaxLabel && labelRE.MatchString(s) }

var identifierRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// IsIdentifier reports whether s is a PostgreSQL identifier that needs no quoting or truncation.
func IsIdentifier(s string) bool { return len(s) <= MaxIdentifier && identifierRE.MatchString(s) }
