// Package config reads instance files and stack schemas, validates an instance against
// its stack, and renders the instance's directory for the GitOps repository.
package config

import (
	"regexp"
	"strings"
)

// maxLabel is the longest DNS-1123 label (RFC 1123, as Kubernetes uses it).
const maxLabel = 63

var labelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

const labelRule = "must be a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)"

// Ref names an instance: TENANT/NAME, each a DNS-1123 label.
type Ref struct {
	Tenant string `json:"tenant"`
	Name   string `json:"name"`
}

// ParseRef parses "tenant/name".
func ParseRef(s string) (Ref, error) {
	tenant, name, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(name, "/") {
		return Ref{}, &RefError{Value: s, Message: "must have the form TENANT/NAME"}
	}
	r := Ref{Tenant: tenant, Name: name}
	return r, r.Validate()
}

// Validate checks both parts, for refs that arrive already split (JSON, flags).
func (r Ref) Validate() error {
	if !isLabel(r.Tenant) {
		return &RefError{Part: "tenant", Value: r.Tenant, Message: labelRule}
	}
	if !isLabel(r.Name) {
		return &RefError{Part: "name", Value: r.Name, Message: labelRule}
	}
	return nil
}

func (r Ref) String() string { return r.Tenant + "/" + r.Name }

// Dir is the instance's directory in the GitOps repository.
func (r Ref) Dir() string { return "instances/" + r.Tenant + "/" + r.Name }

func isLabel(s string) bool { return len(s) <= maxLabel && labelRE.MatchString(s) }
