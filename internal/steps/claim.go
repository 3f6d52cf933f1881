package steps

import "github.com/slipway-dev/slipway/internal/names"

// NamesInput claims (or releases) an instance's derived names in every system that shares them.
type NamesInput struct {
	Ref   Ref         `json:"ref"`
	Names names.Names `json:"names"`
}
