package client

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// AuditEntry is one recorded decision (contract.AuditEntry): `slipway audit` prints one per line.
type AuditEntry = contract.AuditEntry

// auditEntry turns an instance's audit record into an entry.
func auditEntry(ref contract.Ref, rec contract.AuditRecord) AuditEntry {
	return contract.NewAuditEntry(ref, rec)
}

// AuditLog is the durable audit log (internal/store): the decisions the policy made, kept past
// Temporal's retention.
type AuditLog interface {
	AuditSince(ctx context.Context, tenant string, since time.Time, fn func(contract.AuditEntry) error) error
}

// Audit calls fn with every decision about tenant's instances (every tenant when empty) at or
// after since. Without c.AuditLog it reads the decisions each instance recorded in its history,
// those that ended included, oldest first per instance, instances in name order. With it, the
// log holds every record an instance wrote through RecordAudit and slipway server's own, and
// history adds the records the log does not hold (written as side effects: by runs from before
// the log, or when the log could not take one). Each entry's Source says which.
func (c *Client) Audit(ctx context.Context, tenant string, since time.Time, fn func(AuditEntry) error) error {
	if c.AuditLog == nil {
		return c.historyAudit(ctx, tenant, since, func(e AuditEntry, _ bool) error { return fn(e) })
	}
	var all []AuditEntry
	if err := c.AuditLog.AuditSince(ctx, tenant, since, func(e AuditEntry) error {
		e.Source = "log"
		all = append(all, e)
		return nil
	}); err != nil {
		return err
	}
	if err := c.historyAudit(ctx, tenant, since, func(e AuditEntry, logged bool) error {
		if !logged {
			all = append(all, e)
		}
		return nil
	}); err != nil {
		return err
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Instance != all[j].Instance {
			return all[i].Instance < all[j].Instance
		}
		return all[i].At.Before(all[j].At)
	})
	for _, e := range all {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// historyAudit reads the decisions recorded in the histories Temporal still holds; logged says
// the durable audit log holds the record too.
func (c *Client) historyAudit(ctx context.Context, tenant string, since time.Time, fn func(e AuditEntry, logged bool) error) error {
	items, err := c.List(ctx, ListFilter{Tenant: tenant, All: true})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var refs []contract.Ref
	for _, it := range items {
		ref := contract.Ref{Tenant: it.Tenant, Name: it.Name}
		if it.Tenant == "" || it.Name == "" || seen[ref.String()] {
			continue // one chain of runs per instance; InstanceEvents follows it
		}
		seen[ref.String()] = true
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	for _, ref := range refs {
		err := c.InstanceEvents(ctx, ref, false, func(ev InstanceEvent) error {
			if ev.Audit == nil || ev.Audit.At.Before(since) {
				return nil
			}
			e := auditEntry(ref, *ev.Audit)
			e.Source = "history"
			if e.RequestID == "" {
				e.RequestID = ev.auditRequestID
			}
			return fn(e, ev.auditLogged)
		})
		var nf *NotFoundError
		if errors.As(err, &nf) {
			continue // gone from history since the list was read
		}
		if err != nil {
			return err
		}
	}
	return nil
}
