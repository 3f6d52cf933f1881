package cli

import (
	"encoding/json"
	"os"
	"os/user"
	"strings"

	"github.com/slipway-dev/slipway/internal/identity"
)

// EnvDevIdentity lets the dev key's holder act as someone else ("alice" or "alice:tenant:acme,ops",
// or an identity.Actor as JSON): for tests and demos. It only matters where the key is, which is
// root on a dev box anyway.
const EnvDevIdentity = "SLIPWAY_DEV_IDENTITY"

// devActor is who the CLI signs for with the dev key: the local user, a platform admin (the dev
// key is root on a dev box, like a kind cluster's admin kubeconfig).
func devActor() identity.Actor {
	if v := strings.TrimSpace(os.Getenv(EnvDevIdentity)); v != "" {
		var a identity.Actor
		if strings.HasPrefix(v, "{") && json.Unmarshal([]byte(v), &a) == nil && a.Validate() == nil {
			return a
		}
		name, groups, _ := strings.Cut(v, ":")
		a = identity.Actor{Kind: identity.Person, Issuer: "local", Subject: name, Name: name, Via: "dev"}
		if groups != "" {
			a.Groups = strings.Split(groups, ",")
		}
		return a
	}
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return identity.Actor{Kind: identity.Person, Issuer: "local", Subject: name, Name: name,
		Groups: []string{"platform-admins"}, Via: "dev"}
}
