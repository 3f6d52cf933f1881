package cli

import (
	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) watchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch TENANT/NAME",
		Short: "Follow the instance's running operation step by step, with elapsed times, until it ends",
		Long: `Prints each step of the running operation as it starts and ends, then the outcome, as --wait
does for a request you sent: it follows the instance's history by long poll and reads the status
once per step event. On a terminal the steps are a live display, each with a spinner and its
elapsed time while it runs; --plain (or SLIPWAY_PROGRESS=plain, NO_COLOR, TERM=dumb) prints one
line per step and status change instead, as without a terminal. Exit code 0 when the operation
succeeds or none is running, 1 when it fails.`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			c, err := g.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			view, watched := g.progressView(g.plain), false
			st, err := c.Watch(cmd.Context(), ref, func(st *contract.Status) {
				if !watched && st.Operation != nil {
					g.printf("%s: %s %s (attempt %d)", ref, st.Operation.Kind, st.Operation.ID, st.Operation.Attempt)
					if st.Operation.Actor != "" {
						g.printf(", started by %s", st.Operation.Actor)
					}
					if st.Operation.Note != "" {
						g.printf(" (%s)", st.Operation.Note) // what the request said of its sender
					}
					g.printf("\n")
				}
				watched = true
				view.Update(st)
			})
			view.Done()
			if err != nil {
				return err
			}
			if !watched {
				g.printf("%s is %s; no operation is running", ref, st.State)
				if op := st.Operation; op != nil {
					g.printf(" (last: %s %s)", op.Kind, op.Result)
				}
				g.printf("\n")
				return nil
			}
			res := contract.OperationResult{State: st.State, Failure: st.Failure}
			if op := st.Operation; op != nil {
				res.OperationID, res.Kind, res.Result = op.ID, op.Kind, op.Result
			}
			g.printResult(ref.String(), res)
			if res.Result == contract.ResultFailed {
				return failed
			}
			return nil
		},
	}
	return cmd
}
