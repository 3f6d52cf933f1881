package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vbauerster/mpb/v8"
	"golang.org/x/term"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// follow waits for h, showing each step as it starts and ends, then the final state.
func (g *globals) follow(ctx context.Context, c *client.Client, h *client.Handle) error {
	view := g.progressView(g.plain)
	res, err := c.Wait(ctx, h, view.Update)
	view.Done()
	if err != nil {
		return err
	}
	return g.finish(h.Ref.String(), res)
}

// progressView shows an operation's steps from the status snapshots a wait or watch reads.
// Update and Done are called from one goroutine; nothing else may write to stdout between the
// first Update and Done.
type progressView interface {
	// Update shows the steps of st: called once per step event with a fresh status.
	Update(st *contract.Status)
	// Done stops showing; what is printed next goes below the steps.
	Done()
}

// progressView picks how follow and watch show steps: a live display (progress_tty.go) when
// stdout is a terminal that can take one, else one plain line per step and status change,
// which scripts and the e2e tests read. plain asks for the plain lines on a terminal too, as
// SLIPWAY_PROGRESS=plain, NO_COLOR and TERM=dumb do.
func (g *globals) progressView(plain bool) progressView {
	if f, ok := g.streams.Out.(*os.File); ok && !plain && liveProgress(os.Getenv) && drawable(f) {
		return newTTYView(time.Now, mpb.WithOutput(f), mpb.WithRefreshRate(ttyRefresh))
	}
	return &plainView{g: g, seen: map[string]bool{}}
}

// drawable says whether f is a terminal with a width to draw in: a pseudo-terminal that was
// given no size (some CI runners, script(1)) would truncate every line to nothing.
func drawable(f *os.File) bool {
	fd := int(f.Fd())
	if !term.IsTerminal(fd) {
		return false
	}
	w, _, err := term.GetSize(fd)
	return err == nil && w > 0
}

// liveProgress says whether the environment lets a terminal have the live display.
func liveProgress(getenv func(string) string) bool {
	return getenv("SLIPWAY_PROGRESS") != "plain" && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// plainView prints each step once per status it reaches: "  NAME  STATUS (DURATION)  DETAIL".
type plainView struct {
	g    *globals
	seen map[string]bool
}

func (v *plainView) Update(st *contract.Status) { v.g.printSteps(st, v.seen) }
func (v *plainView) Done()                      {}

func (g *globals) printSteps(st *contract.Status, seen map[string]bool) {
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
		if !s.EndedAt.IsZero() && s.Status != contract.StepSkipped {
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
	if r := st.Operation.Retrying; r != nil {
		key := fmt.Sprintf("%s/retrying/%s/%d", st.Operation.ID, r.Step, r.Attempt)
		if !seen[key] {
			seen[key] = true
			g.printf("  %s\n", retryingLine(r))
		}
	}
}

// retryingLine says a step keeps failing: which, on which attempt, since when, when it tries
// next and why.
func retryingLine(r *contract.StepRetry) string {
	return fmt.Sprintf("%-17s %s", r.Step, retryingDetail(r))
}

func retryingDetail(r *contract.StepRetry) string {
	line := fmt.Sprintf("Retrying (attempt %d)", r.Attempt)
	if !r.Since.IsZero() {
		line += " since " + r.Since.UTC().Format(time.RFC3339)
	}
	if !r.NextTry.IsZero() {
		line += " next try " + r.NextTry.UTC().Format(time.RFC3339)
	}
	if r.LastError != "" {
		line += "  " + r.LastError
	}
	return line + "  (slipway retry tries it now)"
}

func (g *globals) printResult(ref string, res contract.OperationResult) {
	switch res.Result {
	case contract.ResultFailed:
		g.printf("%s is %s: %s failed", ref, res.State, res.Kind)
		if f := res.Failure; f != nil {
			g.printf(" at step %s: %s\n", f.Step, f.Error)
			printLeftovers(g, f.Leftovers)
		} else {
			g.printf("\n")
		}
		g.printf("decide with: slipway retry|resolve|abandon %s --reason TEXT\n", ref)
		if res.State == lifecycle.DeploymentFailed || res.State == lifecycle.ProvisioningFailed {
			g.printf("or tear down what it left: slipway destroy|deprovision %s\n", ref)
		}
	default:
		g.printf("%s is %s (%s %s)\n", ref, res.State, res.Kind, res.Result)
	}
	printDataLoss(g, res.Plan)
}

func printLeftovers(g *globals, ls []contract.Leftover) {
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
