package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/store"
)

func (g *globals) secretsCmd() *cobra.Command {
	var stateDir, pgConn string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "secrets TENANT/NAME [--store-pg-conn URL | --state-dir DIR] [-o text|json|yaml]",
		Short: "Print an instance's bootstrapped secrets (NAME=VALUE) from the secret store",
		Long: `Reads the shared store the workers use (PostgreSQL, --store-pg-conn or SLIPWAY_STORE_PG_CONN, else
SLIPWAY_TF_PG_CONN), opening the sealed values with the payload key (SLIPWAY_CODEC_KEY or
SLIPWAY_CODEC_KEY_FILE, else the dev key file). No worker's disk is needed: the authorised operators are
exactly those who hold both the database credentials and the payload key. Without a store connection it
reads a single worker's file store, DIR/secrets/TENANT/NAME.json (mode 0600). Secrets are never in
workflow history, logs or git. Every read writes an audit line to stderr: "secrets of T/N read by ACTOR".
With --server the request goes to ` + "`slipway server`" + ` as the signed-in person: the policy decides
(operation "secrets"), and the server reads its own store and logs the read with the verified actor.`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			api, err := g.api()
			if err != nil {
				return err
			}
			var vals map[string]string
			where := "the slipway server's store"
			if api != nil {
				// The server asks the policy (operation "secrets") and reads the store people cannot.
				vals, err = api.Secrets(cmd.Context(), ref)
			} else {
				vals, where, err = readSecrets(cmd.Context(), pgConn, stateDir, ref.Tenant, ref.Name)
			}
			if err != nil {
				return err
			}
			if len(vals) == 0 {
				return fmt.Errorf("instance %s has no secrets in %s (it was never deployed, was deprovisioned, or the workers use another store)", ref, where)
			}
			fmt.Fprintf(g.streams.Err, "secrets of %s read by %s\n", ref, g.actor)
			return g.output(out, vals, func(w io.Writer) {
				names := make([]string, 0, len(vals))
				for n := range vals {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					fmt.Fprintf(w, "%s=%s\n", n, vals[n])
				}
			})
		},
	}
	cmd.Flags().StringVar(&pgConn, "store-pg-conn", envOr("SLIPWAY_STORE_PG_CONN", os.Getenv("SLIPWAY_TF_PG_CONN")),
		"the shared store's PostgreSQL connection string (SLIPWAY_STORE_PG_CONN)")
	cmd.Flags().StringVar(&stateDir, "state-dir", envOr("SLIPWAY_STATE_DIR", localdirs.DevState()), "a single worker's state dir (SLIPWAY_STATE_DIR), when there is no shared store")
	out = outputFlag(cmd)
	return cmd
}

// readSecrets reads the shared store when a connection is given, else one worker's files;
// where names the store in messages.
func readSecrets(ctx context.Context, pgConn, stateDir, tenant, name string) (map[string]string, string, error) {
	if pgConn == "" {
		dir := filepath.Join(stateDir, "secrets")
		vals, err := secrets.NewStore(dir).Get(ctx, tenant, name)
		return vals, dir, err
	}
	keys, err := codec.Load(client.DevKeyFile())
	if err != nil {
		return nil, "", fmt.Errorf("the shared store is sealed with the payload key: %w", err)
	}
	s, err := store.OpenPG(ctx, pgConn, keys)
	if err != nil {
		return nil, "", fmt.Errorf("--store-pg-conn: %w", err)
	}
	defer s.Close()
	vals, err := s.Get(ctx, tenant, name)
	return vals, "the shared store", err
}
