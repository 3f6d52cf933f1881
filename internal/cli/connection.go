package cli

import (
	"os"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/identity"
)

// profileFileHelp says where the Temporal config file is, for the flag's help.
const profileFileHelp = "$TEMPORAL_CONFIG_FILE, else temporal.toml under the user's config dir, as the temporal CLI"

// profileChoice is the one profile a command uses, for both the Temporal connection and the sign-in.
type profileChoice struct {
	name string
	// by names what chose it, for errors: "--profile", "$SLIPWAY_PROFILE", "$TEMPORAL_PROFILE"; "" the default.
	by string
	// strict: the config file must have it. $SLIPWAY_PROFILE once named only a sign-in, so a file
	// without it keeps the connection it had (TEMPORAL_PROFILE's, else the default).
	strict bool
}

// resolveProfile is --profile, else $SLIPWAY_PROFILE, else $TEMPORAL_PROFILE, else "default".
func resolveProfile(flag string) profileChoice {
	switch {
	case flag != "":
		return profileChoice{name: flag, by: "--profile", strict: true}
	case os.Getenv(identity.EnvProfile) != "":
		return profileChoice{name: os.Getenv(identity.EnvProfile), by: "$" + identity.EnvProfile}
	case os.Getenv("TEMPORAL_PROFILE") != "":
		return profileChoice{name: os.Getenv("TEMPORAL_PROFILE"), by: "$TEMPORAL_PROFILE", strict: true}
	}
	return profileChoice{name: identity.DefaultProfile}
}

// checked refuses a name that cannot be a sign-in's, naming what chose it.
func (p profileChoice) checked() (string, error) {
	if err := identity.CheckProfile(p.name); err != nil {
		by := p.by
		if by == "" {
			by = "--profile"
		}
		return "", usageErr("%s: %v", by, err)
	}
	return p.name, nil
}

// connect adds the connection flags to opts: --address and --namespace over TEMPORAL_* over the
// profile, which --profile (or its variables) picks in the config file.
func (g *globals) connect(opts ...client.Option) []client.Option {
	p := resolveProfile(g.profile)
	namedBy := ""
	if p.strict {
		namedBy = p.by
	}
	opts = append(opts, client.WithProfile(p.name, namedBy))
	if g.address != "" {
		opts = append(opts, client.WithHostPort(g.address))
	}
	if g.namespace != "" {
		opts = append(opts, client.WithNamespace(g.namespace))
	}
	return opts
}

// orElse is a, else b.
func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
