// Package identity says who asked: a person signed in through the OpenID Connect provider, a
// user the forge authenticated, or one of slipway's own components. An Actor is only ever
// built by code that verified it (a token, a forge API call, a component's key); nothing a
// request declares about itself becomes an Actor.
package identity

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Kind is how an actor was authenticated.
type Kind string

const (
	// Person signed in through the OpenID Connect provider (slipway login).
	Person Kind = "person"
	// Forge is the user a forge authenticated: a pusher, merger or commenter.
	Forge Kind = "forge"
	// Service is one of slipway's own components (worker, webhook server, API server).
	Service Kind = "service"
)

// Actor is a verified identity.
type Actor struct {
	Kind Kind `json:"kind"`
	// Issuer is who vouches for it: the OIDC issuer URL, the forge ("github", "gitlab",
	// "gitea" and its base URL), or "slipway" for a component.
	Issuer string `json:"issuer"`
	// Subject is the issuer's stable identifier (the token's sub, the forge's user ID).
	Subject string `json:"subject"`
	// Name is what people call it: preferred_username, the forge login, the component name.
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	// Groups are the provider's groups claim; forge users get theirs from the policy's mapping.
	Groups []string `json:"groups,omitempty"`
	// Via is the path the request came by: cli, api, webhook, comment, worker, dev.
	Via string `json:"via,omitempty"`
}

// IsZero reports whether a is no identity at all.
func (a Actor) IsZero() bool { return a.Kind == "" && a.Name == "" && a.Subject == "" }

// Validate refuses an actor that names no kind, issuer or name.
func (a Actor) Validate() error {
	switch a.Kind {
	case Person, Forge, Service:
	default:
		return fmt.Errorf("actor.kind: %q is not person, forge or service", a.Kind)
	}
	if strings.TrimSpace(a.Issuer) == "" {
		return fmt.Errorf("actor.issuer: empty")
	}
	if strings.TrimSpace(a.Name) == "" && strings.TrimSpace(a.Subject) == "" {
		return fmt.Errorf("actor.name: empty (and no subject)")
	}
	return nil
}

// InGroup reports whether a is in any of groups.
func (a Actor) InGroup(groups ...string) bool {
	for _, g := range groups {
		if slices.Contains(a.Groups, g) {
			return true
		}
	}
	return false
}

// String is how logs and events show it: "alice (person, https://idp.example)".
func (a Actor) String() string {
	if a.IsZero() {
		return "nobody"
	}
	name := a.Name
	if name == "" {
		name = a.Subject
	}
	return fmt.Sprintf("%s (%s, %s)", name, a.Kind, a.Issuer)
}

type ctxKey struct{}

// With returns ctx carrying a, for a client that signs requests on a's behalf.
func With(ctx context.Context, a Actor) context.Context { return context.WithValue(ctx, ctxKey{}, a) }

// From returns the actor ctx carries.
func From(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(ctxKey{}).(Actor)
	return a, ok
}
