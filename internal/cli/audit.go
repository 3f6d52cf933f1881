package cli

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

func (g *globals) auditCmd() *cobra.Command {
	var since, tenant, pgConn, stateDir string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "audit [--since T] [--tenant T] [-o jsonl|json|yaml]",
		Short: "Export every recorded decision (allowed, denied, approval asked, approved, rejected, refused) as JSON lines",
		Long: `Reads the durable audit log the workers and slipway server write (the shared store,
--store-pg-conn or SLIPWAY_STORE_PG_CONN, else a single worker's DIR/audit.jsonl), which outlives
Temporal's retention, and adds from each instance's history (its events: slipway events shows them
too) the records the log does not hold: those of runs from before the log, or one the log refused.
Deprovisioned instances are included. It prints one JSON object per line (-o json: one array,
-o yaml: a list):
{at, tenant, instance, actor, actorKind, issuer, operation, decision, reason, policyHash, requestID,
request, workflow, source}. actor is the verified actor's name ("-" when the request carried none: a
refused one); policyHash names the policy's version that decided; source is "log" or "history".
It is a read: with --server, slipway server answers with the decisions of the tenants the policy
lets the person read (operation read).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := parseSince(since, time.Now())
			if err != nil {
				return err
			}
			if tenant != "" && !labelRE.MatchString(tenant) {
				return usageErr("--tenant %q: must be a lowercase label (a-z, 0-9, -)", tenant)
			}
			return g.withReader(cmd, func(c reader) error {
				if cl, ok := c.(*client.Client); ok {
					// Straight to Temporal: the durable log too, where this host can read it.
					log, closeLog, err := openAuditLog(cmd.Context(), pgConn, stateDir, false)
					if err != nil {
						return err
					}
					defer closeLog()
					if log != nil {
						cl.AuditLog = log
					}
				}
				if out.value == formatJSONL {
					return c.Audit(cmd.Context(), tenant, from, func(e client.AuditEntry) error { return g.jsonLine(e) })
				}
				entries := []client.AuditEntry{}
				if err := c.Audit(cmd.Context(), tenant, from, func(e client.AuditEntry) error {
					entries = append(entries, e)
					return nil
				}); err != nil {
					return err
				}
				return g.output(out, entries, nil)
			})
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only decisions at or after T: a time (RFC 3339, e.g. 2026-11-24T10:00:00Z) or how long ago (e.g. 24h)")
	cmd.Flags().StringVar(&tenant, "tenant", "", "only this tenant's instances")
	cmd.Flags().StringVar(&pgConn, "store-pg-conn", envOr("SLIPWAY_STORE_PG_CONN", os.Getenv("SLIPWAY_TF_PG_CONN")),
		"the shared store holding the audit log (SLIPWAY_STORE_PG_CONN)")
	cmd.Flags().StringVar(&stateDir, "state-dir", envOr("SLIPWAY_STATE_DIR", localdirs.DevState()), "a single worker's state dir (SLIPWAY_STATE_DIR), when there is no shared store")
	out = outputFlag(cmd, formatJSONL, formatJSON, formatYAML)
	return cmd
}

// parseSince reads --since: an RFC 3339 time, or a duration back from now; empty is the beginning.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, usageErr("--since %q: give a time (RFC 3339, e.g. 2026-11-24T10:00:00Z) or how long ago (e.g. 24h)", s)
	}
	return now.Add(-d), nil
}
