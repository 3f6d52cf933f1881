package contract

import "github.com/slipway-dev/slipway/internal/names"

// NamesInput claims (or releases) an instance's derived names in every system that shares them.
type NamesInput struct {
	Ref   Ref         `json:"ref"`
	Names names.Names `json:"names"`
	// Legacy claims names an instance already has from the old rule: the reserved list does not apply.
	Legacy bool `json:"legacy,omitempty"`
}
