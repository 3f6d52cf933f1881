package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func (g *globals) planCmd() *cobra.Command {
	var file, to string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "plan TENANT/NAME [-f FILE] [--to RELEASE]",
		Short: "Dry run: the attribute-level terraform plan and the config diff the repo would get, from one render; changes nothing",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			req := contract.OperationRequest{Actor: g.actor, To: to}
			if probe := to; to != "" {
				if !strings.Contains(to, "@") {
					probe = "stack@" + to
				}
				if _, r, err := config.ParseStackRef(probe); err != nil || r == "" {
					return usageErr("--to %q: a release version (1.5.0), a channel (stable), or STACK@ one of them", to)
				}
			}
			if file != "" {
				if req.ConfigYAML, err = readConfig(file); err != nil {
					return err
				}
			}
			res, err := g.plan(cmd.Context(), ref, req)
			if err != nil {
				return err
			}
			if err := g.output(out, res, func(io.Writer) { g.printPlan(ref.String(), res) }); err != nil {
				return err
			}
			if res.Result == contract.ResultFailed {
				return failed
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "plan a changed instance file instead of the committed one")
	cmd.Flags().StringVar(&to, "to", "", "preview the instance on this release (or channel) of its stack: its config diff and terraform plan")
	out = outputFlag(cmd)
	return cmd
}

// plan runs a plan and waits for it: through the server with --server, else on Temporal.
func (g *globals) plan(ctx context.Context, ref contract.Ref, req contract.OperationRequest) (contract.OperationResult, error) {
	api, err := g.api()
	if err != nil {
		return contract.OperationResult{}, err
	}
	if api != nil {
		acc, err := api.Submit(ctx, ref, lifecycle.OpPlan, req, g.requestID)
		if err != nil {
			return contract.OperationResult{}, err
		}
		return api.Wait(ctx, ref, acc.RequestID, nil)
	}
	c, err := g.dialSigned(ctx)
	if err != nil {
		return contract.OperationResult{}, err
	}
	defer c.Close()
	if _, err := c.Precheck(ctx, ref, lifecycle.OpPlan, req); err != nil {
		return contract.OperationResult{}, err
	}
	h, err := g.accepting(ctx, func(ctx context.Context) (*client.Handle, error) {
		return c.Submit(ctx, ref, lifecycle.OpPlan, req, g.requestID)
	})
	if err != nil {
		return contract.OperationResult{}, err
	}
	return h.Get(ctx)
}

func (g *globals) printPlan(ref string, res contract.OperationResult) {
	if res.Result == contract.ResultFailed {
		g.printResult(ref, res)
		return
	}
	if p := res.Plan; p != nil {
		g.printf("terraform: %s\n", planLine(p.NoChanges, p.Add, p.Change, p.Destroy))
		for _, rc := range p.Resources {
			g.printf("  %v %s\n", rc.Actions, rc.Address)
			for _, a := range rc.Attributes {
				if a.Before == "" && a.After == "" {
					g.printf("      %s\n", a.Path) // the count of those left out
					continue
				}
				g.printf("      %s: %s -> %s\n", a.Path, a.Before, a.After)
			}
		}
		printDataLoss(g, p)
	}
	if res.Diff == "" {
		g.printf("config: no changes\n")
	} else {
		g.printf("config diff:\n%s", indent(res.Diff, "  "))
	}
}

// printDataLoss warns of the resources a plan deletes or replaces, always, whatever the approval
// policy: each may lose the data it holds (EDP's warning).
func printDataLoss(g *globals, p *contract.PlanSummary) {
	if p != nil && len(p.DataLoss) > 0 {
		g.printf("possible data loss: %d resource(s) deleted or replaced, and the data they hold with them: %s\n",
			len(p.DataLoss), strings.Join(p.DataLoss, ", "))
	}
}

func planLine(none bool, add, change, destroy int) string {
	if none {
		return "no changes"
	}
	return fmt.Sprintf("%d to add, %d to change, %d to destroy", add, change, destroy)
}
