package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
)

// forgeIssuer names who vouches for provider's user IDs: the GitOps forge's issuer when the
// delivery came from it (a Gitea is named by its base URL), else the provider.
func (a *Activities) forgeIssuer(provider string) string {
	if p, ok := forge.As[forge.Permissions](a.Forge); ok && p.Issuer() != "" && a.Forge.Name() == provider {
		return p.Issuer()
	}
	return provider
}

// forgeUser is the account a signed payload names (a pusher or merger: the forge accepted the
// push or merge, so the payload proves it) as the actor of the requests it carries.
func (a *Activities) forgeUser(provider, login, id, via string) identity.Actor {
	return identity.Actor{Kind: identity.Forge, Issuer: a.forgeIssuer(provider), Subject: id, Name: login, Via: via}
}

// commenterRefusedError is a commenter the forge's API does not vouch for as a writer of the
// repository: nothing is submitted. Its message names the account, never a plan.
type commenterRefusedError struct{ why string }

func (e *commenterRefusedError) Error() string { return e.why }

// verifiedCommenter asks the forge's API what the commenter may do in the GitOps repository: a
// comment's payload says who wrote it, not that they may approve. It must be the forge the
// comment came from, the account must be the one the payload names (same user ID), and it must
// have write permission. Anything else is a *commenterRefusedError; a forge that cannot be
// reached is an error to retry.
func (a *Activities) verifiedCommenter(ctx context.Context, provider, login, id string) (identity.Actor, error) {
	p, ok := forge.As[forge.Permissions](a.Forge)
	if !ok || p.Issuer() == "" || a.Forge.Name() != provider {
		return identity.Actor{}, &commenterRefusedError{fmt.Sprintf("the GitOps forge is %s, which cannot vouch for %s accounts: comment approvals need the forge the comment is on", a.Forge.Name(), provider)}
	}
	u, perm, err := p.Permission(ctx, login)
	var nf *forge.NotFoundError
	var invalid *forge.InvalidError
	switch {
	case errors.As(err, &nf), errors.As(err, &invalid):
		return identity.Actor{}, &commenterRefusedError{fmt.Sprintf("@%s is not an account %s knows", login, provider)}
	case err != nil:
		return identity.Actor{}, classify(err)
	case id != "" && u.ID != id:
		return identity.Actor{}, &commenterRefusedError{fmt.Sprintf("@%s is account %s on %s, not %s as the comment says: it was renamed since", login, u.ID, provider, id)}
	case !perm.AtLeast(forge.PermissionWrite):
		return identity.Actor{}, &commenterRefusedError{fmt.Sprintf("@%s has %s permission on the repository: approving needs write", login, perm)}
	}
	return identity.Actor{Kind: identity.Forge, Issuer: p.Issuer(), Subject: u.ID, Name: u.Login, Via: "comment"}, nil
}

// providerOf is the provider part of a delivery's "provider/ID" (inputs recorded before
// SubmitInput carried its provider).
func providerOf(delivery string) string {
	p, _, _ := strings.Cut(delivery, "/")
	return p
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
