package names

import "fmt"

// Kinds of names: each is one flat namespace that instances share.
const (
	KindNamespace   = "k8s-namespace"
	KindApplication = "argocd-application"
	KindSchema      = "pg-schema"
)

var kindTitles = map[string]string{
	KindNamespace:   "kubernetes namespace",
	KindApplication: "ArgoCD application",
	KindSchema:      "PostgreSQL schema",
}

// Claim is one name in one system, as an instance holds it.
type Claim struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// String reads "kubernetes namespace acme-web".
func (c Claim) String() string {
	if t, ok := kindTitles[c.Kind]; ok {
		return t + " " + c.Value
	}
	return c.Kind + " " + c.Value
}

// Claims lists n's names, one per system, in a fixed order.
func (n Names) Claims() []Claim {
	return []Claim{{KindNamespace, n.Namespace}, {KindApplication, n.Application}, {KindSchema, n.Schema}}
}

// Validate checks that each name is valid in its system and within its limit.
func (n Names) Validate() error {
	switch {
	case !IsLabel(n.Namespace):
		return &InvalidError{Claim: Claim{KindNamespace, n.Namespace}, Rule: "a DNS-1123 label of at most 63 characters"}
	case len(n.Application) > MaxApplication || !IsLabel(n.Application):
		return &InvalidError{Claim: Claim{KindApplication, n.Application}, Rule: "a DNS-1123 label of at most 53 characters"}
	case !IsIdentifier(n.Schema):
		return &InvalidError{Claim: Claim{KindSchema, n.Schema}, Rule: "a lowercase PostgreSQL identifier of at most 63 characters"}
	}
	return nil
}

// InvalidError is a name its system would refuse or change.
type InvalidError struct {
	Claim Claim
	Rule  string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("%s: must be %s", e.Claim, e.Rule) }

// TakenError is a claim another instance holds.
type TakenError struct {
	Claim  Claim
	Holder string // the other instance, TENANT/NAME
}

func (e *TakenError) Error() string {
	return fmt.Sprintf("%s is already used by instance %s", e.Claim, e.Holder)
}
