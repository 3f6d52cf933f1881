package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/statedir"
)

func (g *globals) secretsCmd() *cobra.Command {
	var stateDir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "secrets TENANT/NAME [--state-dir DIR] [--json]",
		Short: "Print an instance's bootstrapped secrets (NAME=VALUE) from the worker's secret store",
		Long: `Reads DIR/secrets/TENANT/NAME.json, the store the worker keeps on its own disk. The store is mode
0600/0700 and owned by the worker's user, so the authorised operators are exactly those who can read it
(the worker's user, or root): run this on the worker's machine as that user. Secrets are never in
workflow history, logs or git. Every read writes an audit line to stderr: "secrets of T/N read by ACTOR".`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			dir := filepath.Join(stateDir, "secrets")
			vals, err := secrets.NewStore(dir).Get(ref.Tenant, ref.Name)
			if err != nil {
				return err
			}
			if len(vals) == 0 {
				return fmt.Errorf("instance %s has no secrets in %s (it was never deployed, was deprovisioned, or the worker uses another --state-dir / SLIPWAY_STATE_DIR)", ref, dir)
			}
			fmt.Fprintf(g.streams.Err, "secrets of %s read by %s\n", ref, g.actor)
			if asJSON {
				out, err := json.MarshalIndent(vals, "", "  ")
				if err != nil {
					return err
				}
				g.printf("%s\n", out)
				return nil
			}
			names := make([]string, 0, len(vals))
			for n := range vals {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				g.printf("%s=%s\n", n, vals[n])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", envOr("SLIPWAY_STATE_DIR", statedir.Dev()), "the worker's state dir (SLIPWAY_STATE_DIR)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object instead")
	return cmd
}
