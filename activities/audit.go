package activities

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
)

// AuditLog is the durable audit log (internal/store): the shared store, or one host's file.
type AuditLog interface {
	AppendAudit(ctx context.Context, key string, e contract.AuditEntry) error
}

// RequestClaims records which delivery first submitted each request (internal/store).
type RequestClaims interface {
	ClaimRequest(ctx context.Context, request, claimer string) (holder string, err error)
}

// RecordAudit writes an instance's audit record to the durable audit log, keyed by the run and
// the local activity's ID, so a retried write lands once. It returns the record: its marker in
// history holds it too. Without a log (tests, benchmarks) it only returns it.
func (a *Activities) RecordAudit(ctx context.Context, in contract.AuditWrite) (contract.AuditRecord, error) {
	if a.Audit == nil {
		return in.Record, nil
	}
	info := activity.GetInfo(ctx)
	key := strings.Join([]string{info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.ActivityID}, "/")
	return in.Record, a.Audit.AppendAudit(ctx, key, contract.NewAuditEntry(in.Ref, in.Record))
}
