package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// auditContract is what every AuditLog does: a key lands once, entries come back oldest first,
// filtered by tenant and time, and the log knows when it began.
func auditContract(t *testing.T, log AuditLog) {
	ctx := context.Background()
	began, err := log.AuditBegan(ctx)
	require.NoError(t, err)
	require.True(t, began.IsZero(), "an empty log has not begun")

	t0 := time.Date(2025, 11, 27, 10, 0, 0, 0, time.UTC)
	acme := contract.AuditEntry{At: t0.Add(time.Hour), Tenant: "acme", Instance: "acme/web", Actor: "alice", Operation: "deploy", Decision: "allowed"}
	other := contract.AuditEntry{At: t0, Tenant: "other", Instance: "other/db", Actor: "bob", Operation: "destroy", Decision: "denied", Reason: "no"}
	require.NoError(t, log.AppendAudit(ctx, "wf/run/1", acme))
	require.NoError(t, log.AppendAudit(ctx, "wf/run/1", acme), "a retried write of one key")
	require.NoError(t, log.AppendAudit(ctx, "wf2/run/1", other))
	require.Error(t, log.AppendAudit(ctx, "", acme), "an entry needs its key")

	read := func(tenant string, since time.Time) []contract.AuditEntry {
		var out []contract.AuditEntry
		require.NoError(t, log.AuditSince(ctx, tenant, since, func(e contract.AuditEntry) error {
			out = append(out, e)
			return nil
		}))
		return out
	}
	all := read("", time.Time{})
	require.Len(t, all, 2, "the retried write landed once")
	require.Equal(t, "other/db", all[0].Instance, "oldest first")
	require.Equal(t, "acme/web", all[1].Instance)
	require.Equal(t, []contract.AuditEntry{all[1]}, read("acme", time.Time{}))
	require.Equal(t, []contract.AuditEntry{all[1]}, read("", t0.Add(time.Minute)))
	began, err = log.AuditBegan(ctx)
	require.NoError(t, err)
	require.True(t, began.Equal(t0), "began %s", began)
}

func TestAuditFileKeepsEachKeyOnceAndSurvivesATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", AuditFileName)
	auditContract(t, &AuditFile{Path: path})
	// A worker killed mid-write leaves a torn last line: it is skipped, the rest stays readable.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"key":"torn","entry":{"at":"2025-`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	n := 0
	require.NoError(t, (&AuditFile{Path: path}).AuditSince(context.Background(), "", time.Time{}, func(contract.AuditEntry) error { n++; return nil }))
	require.Equal(t, 2, n)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "only the worker's user reads the log")
}

func TestAuditLogInTheSharedStore(t *testing.T) {
	pg := postgres.Start(t)
	k, _ := keys(t, "k1")
	auditContract(t, open(t, pg.CreateDB(t, "audit"), k))
}
