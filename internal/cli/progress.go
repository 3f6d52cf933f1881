package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// follow waits for h, printing each step as it starts and ends, then the final state.
func (g *globals) follow(ctx context.Context, c *client.Client, h *client.Handle) error {
	seen := map[string]bool{}
	res, err := c.Wait(ctx, h, func(st *workflows.Status) { g.printSteps(st, seen) })
	if err != nil {
		return err
	}
	g.printResult(h.Ref.String(), res)
	if res.Result == workflows.ResultFailed {
		return failed
	}
	return nil
}

func (g *globals) printSteps(st *workflows.Status, seen map[string]bool) {
	if st.Operation == nil {
		return
	}
	for _, s := range st.Operation.Steps {
		key := fmt.Sprintf("%s/%d/%s/%s", st.Operation.ID, s.Attempt, s.Name, s.Status)
		if seen[key] {
			continue
		}
		seen[key] = true
		line := fmt.Sprintf("  %-17s %s", s.Name, s.Status)
		if !s.EndedAt.IsZero() && s.Status != workflows.StepSkipped {
			line += fmt.Sprintf(" (%s)", s.EndedAt.Sub(s.StartedAt).Round(1e6))
		}
		if s.Detail != "" {
			line += "  " + s.Detail
		}
		if s.Error != "" {
			line += "  " + s.Error
		}
		g.printf("%s\n", line)
	}
}

func (g *globals) printResult(ref string, res workflows.OperationResult) {
	switch res.Result {
	case workflows.ResultFailed:
		g.printf("%s is %s: %s failed", ref, res.State, res.Kind)
		if f := res.Failure; f != nil {
			g.printf(" at step %s: %s\n", f.Step, f.Error)
			printLeftovers(g, f.Leftovers)
		} else {
			g.printf("\n")
		}
		g.printf("decide with: slipway retry|resolve|abandon %s --reason TEXT\n", ref)
	default:
		g.printf("%s is %s (%s %s)\n", ref, res.State, res.Kind, res.Result)
	}
}

func printLeftovers(g *globals, ls []steps.Leftover) {
	if len(ls) == 0 {
		g.printf("leftovers: none\n")
		return
	}
	g.printf("leftovers:\n")
	for _, l := range ls {
		g.printf("  - %s %s: %s\n    cleanup: %s\n", l.Kind, l.ID, l.Detail, l.Cleanup)
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}
