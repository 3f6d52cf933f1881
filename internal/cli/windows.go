package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/labels"
	"github.com/slipway-dev/slipway/internal/windows"
)

// windowOverride is --override-window --reason on the operations change windows hold.
type windowOverride struct {
	on     bool
	reason string
}

func (o *windowOverride) flags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.on, "override-window", false, "start now, outside the change windows (platform admins; needs --reason; audited)")
	cmd.Flags().StringVar(&o.reason, "reason", "", "why (with --override-window); recorded with the actor")
}

// apply puts the override into req; --override-window without --reason is bad input.
func (o *windowOverride) apply(req *contract.OperationRequest) error {
	if o.on && strings.TrimSpace(o.reason) == "" {
		return usageErr("--override-window needs --reason: the override is audited with who asked and why")
	}
	req.OverrideWindow, req.Reason = o.on, o.reason
	return nil
}

func (g *globals) windowsCmd() *cobra.Command {
	var dir, tenant, stack string
	var labelArgs []string
	cmd := &cobra.Command{
		Use:   "windows [--tenant T] [--stack S] [--label K=V]... [--dir DIR]",
		Short: "The platform's change windows (data.slipway.windows in the policy bundle) and the next opening",
		Long: `Lists the change windows the policy bundle declares (the bundle the workers load: --dir, default
SLIPWAY_POLICY_DIR), those covering --tenant, --stack and the instance labels --label when given, and
whether an operation of such an instance may start now or when it next may. Provision, deploy, archive, destroy and deprovision
outside their windows wait for the opening; plans, drift checks and reads never do.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			want, err := parseLabelFlags(labelArgs)
			if err != nil {
				return err
			}
			e, err := loadPolicy(dir)
			if err != nil {
				return err
			}
			all := e.Windows()
			var ws windows.Set
			for _, w := range all {
				if (tenant == "" || len(w.Tenants) == 0 || slices.Contains(w.Tenants, tenant)) && (stack == "" || len(w.Stacks) == 0 || slices.Contains(w.Stacks, stack)) &&
					(want == nil || labels.Match(w.Labels, want)) {
					ws = append(ws, w)
				}
			}
			if len(ws) == 0 {
				g.printf("no change window covers %s: operations start whenever they are asked\n", scopeName(tenant, stack, want))
				return nil
			}
			tw := tabwriter.NewWriter(g.streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tSTART\tDURATION\tTIME ZONE\tSTACKS\tTENANTS\tLABELS")
			for _, w := range ws {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", w.Name, w.Kind, w.Start, w.Duration, orDash(w.TimeZone, "UTC"),
					orDash(strings.Join(w.Stacks, ","), "*"), orDash(strings.Join(w.Tenants, ","), "*"), orDash(strings.ReplaceAll(labels.String(w.Labels), ", ", ","), "*"))
			}
			_ = tw.Flush()
			st := ws.At(time.Now())
			switch {
			case st.Open:
				g.printf("%s: open now (inside: %s)\n", scopeName(tenant, stack, want), orDash(strings.Join(st.Inside, ", "), "no window; none denies"))
			case st.Next.IsZero():
				g.printf("%s: closed; no window opens within a year\n", scopeName(tenant, stack, want))
			default:
				g.printf("%s: closed; next opening at %s (in %s)\n", scopeName(tenant, stack, want), st.Next.Format(time.RFC3339),
					time.Until(st.Next).Round(time.Second))
			}
			return nil
		},
	}
	policyDirFlag(cmd, &dir)
	cmd.Flags().StringVar(&tenant, "tenant", "", "only the windows covering this tenant")
	cmd.Flags().StringVar(&stack, "stack", "", "only the windows covering this stack")
	cmd.Flags().StringArrayVar(&labelArgs, "label", nil, "only the windows covering an instance with this label K=V (repeatable)")
	return cmd
}

func scopeName(tenant, stack string, want map[string]string) string {
	if want != nil {
		return strings.TrimPrefix(scopeName(tenant, stack, nil)+", labels "+labels.String(want), "every instance, ")
	}
	switch {
	case tenant != "" && stack != "":
		return "tenant " + tenant + ", stack " + stack
	case tenant != "":
		return "tenant " + tenant
	case stack != "":
		return "stack " + stack
	}
	return "every instance"
}

// parseLabelFlags reads --label K=V flags as an instance's labels; nil when none is given.
func parseLabelFlags(args []string) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usageErr("--label %q: must be KEY=VALUE, such as tier=gold", a)
		}
		if err := labels.CheckKey(k); err != nil {
			return nil, usageErr("--label %q: %v", a, err)
		}
		if err := labels.CheckValue(v); err != nil {
			return nil, usageErr("--label %q: value %v", a, err)
		}
		out[k] = v
	}
	return out, nil
}

func orDash(s, dash string) string {
	if s == "" {
		return dash
	}
	return s
}
