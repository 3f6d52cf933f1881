package workerapp

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// TerraformSandbox says how a worker confines terraform, its providers and provisioners
// (SLIPWAY_TERRAFORM_SANDBOX): in bubblewrap, unconfined because the operator said so, or
// not at all (every terraform step is refused).
type TerraformSandbox struct {
	// Mode is terraform.SandboxBwrap, terraform.SandboxNoneInsecure, or "" (refused).
	Mode  string
	Bwrap string
	Binds []string
	// Reason is why bubblewrap does not work here, when it does not.
	Reason string
	// DevFallback says the dev stack runs terraform unconfined because bubblewrap is missing.
	DevFallback bool
}

// String is the one line a worker logs at start about terraform's confinement.
func (s TerraformSandbox) String() string {
	switch {
	case s.Mode == terraform.SandboxBwrap:
		return "terraform runs in bubblewrap (" + s.Bwrap + "): own user, PID and mount namespaces, only its instance's files, no key of the worker's"
	case s.DevFallback:
		return "terraform runs UNCONFINED as your user: bubblewrap does not work here (" + s.Reason + "); a configuration can read your files and processes (Debian: apt-get install bubblewrap)"
	case s.Mode == terraform.SandboxNoneInsecure:
		return "terraform runs UNCONFINED as the worker's user (" + terraform.EnvSandbox + "=" + terraform.SandboxNoneInsecure + "): a tenant's configuration can read the worker's files and processes"
	}
	return "terraform steps are REFUSED: " + (&terraform.SandboxRefusedError{Reason: s.Reason}).Error()
}

// Secure reports whether terraform runs in the sandbox.
func (s TerraformSandbox) Secure() bool { return s.Mode == terraform.SandboxBwrap }

// TerraformSandboxFromEnv reads SLIPWAY_TERRAFORM_SANDBOX: unset, bubblewrap when it works
// here, else terraform steps are refused (devFallback, for `slipway dev`: unconfined, saying
// so); "bwrap", bubblewrap or the worker does not start; "none-insecure", unconfined.
func TerraformSandboxFromEnv(ctx context.Context, getenv func(string) string, devFallback bool) (TerraformSandbox, error) {
	var binds []string
	if v := getenv(terraform.EnvSandboxBinds); v != "" {
		binds = strings.Split(v, ",")
	}
	switch v := getenv(terraform.EnvSandbox); v {
	case terraform.SandboxNoneInsecure:
		return TerraformSandbox{Mode: v}, nil
	case "", terraform.SandboxBwrap:
		sb, err := hooks.SandboxFromEnv(ctx, func(k string) string {
			if k == hooks.EnvSandbox {
				return hooks.SandboxBwrap
			}
			return getenv(k)
		})
		switch {
		case err == nil:
			return TerraformSandbox{Mode: terraform.SandboxBwrap, Bwrap: sb.Bwrap, Binds: binds}, nil
		case v != "":
			return TerraformSandbox{}, fmt.Errorf("%s=bwrap: %w", terraform.EnvSandbox, err)
		}
		reason := strings.TrimPrefix(err.Error(), hooks.EnvSandbox+"="+hooks.SandboxBwrap+": ") // the probe is hooks'
		if devFallback {
			return TerraformSandbox{Mode: terraform.SandboxNoneInsecure, Reason: reason, DevFallback: true}, nil
		}
		return TerraformSandbox{Reason: reason}, nil
	case "none":
		return TerraformSandbox{}, fmt.Errorf("%s: %q no longer runs terraform unconfined; say %s to, or unset it for bubblewrap",
			terraform.EnvSandbox, v, terraform.SandboxNoneInsecure)
	default:
		return TerraformSandbox{}, fmt.Errorf("%s: %q is not a sandbox; use bwrap (the default) or %s",
			terraform.EnvSandbox, v, terraform.SandboxNoneInsecure)
	}
}

// options are the terraform runner's options for s.
func (s TerraformSandbox) options() []terraform.Option {
	switch s.Mode {
	case terraform.SandboxBwrap:
		return []terraform.Option{terraform.WithSandbox(s.Bwrap, s.Binds...)}
	case terraform.SandboxNoneInsecure:
		line := s.String()
		return []terraform.Option{terraform.WithUnconfined(func(ctx context.Context, ws terraform.Workspace, command string) {
			if activity.IsActivity(ctx) {
				activity.GetLogger(ctx).Warn(line, "instance", ws.String(), "command", command)
			}
		})}
	}
	return []terraform.Option{terraform.WithSandboxRefused(s.Reason)}
}

// terraformSandbox is cfg's confinement of terraform, or the one SLIPWAY_TERRAFORM_SANDBOX picks.
func terraformSandbox(cfg Config) (TerraformSandbox, error) {
	if cfg.TerraformSandbox != nil {
		return *cfg.TerraformSandbox, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sandboxProbeTimeout)
	defer cancel()
	return TerraformSandboxFromEnv(ctx, os.Getenv, false)
}
