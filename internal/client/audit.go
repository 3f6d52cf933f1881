package client

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// AuditEntry is one recorded decision about a request to an instance (or one of its pipelines):
// `slipway audit` prints one per line.
type AuditEntry struct {
	At         time.Time `json:"at"`
	Tenant     string    `json:"tenant"`
	Instance   string    `json:"instance"`
	Actor      string    `json:"actor"`
	ActorKind  string    `json:"actorKind,omitempty"`
	Issuer     string    `json:"issuer,omitempty"`
	Operation  string    `json:"operation"`
	Decision   string    `json:"decision"`
	Reason     string    `json:"reason,omitempty"`
	PolicyHash string    `json:"policyHash,omitempty"`
	RequestID  string    `json:"requestID,omitempty"`
	// Request is what was asked as history names it: "update deploy", "signal approval-decision".
	Request string `json:"request"`
	// Workflow is where the request went when not the instance itself (a pipeline).
	Workflow string `json:"workflow,omitempty"`
}

// auditEntry turns an instance's audit record into an entry.
func auditEntry(ref contract.Ref, rec contract.AuditRecord) AuditEntry {
	e := AuditEntry{At: rec.At, Tenant: ref.Tenant, Instance: ref.String(), Decision: rec.Decision, Reason: rec.Reason,
		PolicyHash: rec.PolicyHash, Request: rec.Request, Workflow: rec.Workflow, Actor: "-"}
	// "update deploy", "signal approval-decision"; a pipeline's own records: "destroy <operation ID>".
	switch f := strings.Fields(rec.Request); {
	case len(f) > 1 && (f[0] == "update" || f[0] == "signal"):
		e.Operation = f[1]
	case len(f) > 0:
		e.Operation = f[0]
	}
	if a := rec.Actor; a != nil {
		e.Actor, e.ActorKind, e.Issuer = actorName(*a), string(a.Kind), a.Issuer
	}
	return e
}

// Audit calls fn with every decision recorded in the history of each instance of tenant (every
// tenant when empty), those that ended included, at or after since; oldest first per instance,
// instances in name order.
func (c *Client) Audit(ctx context.Context, tenant string, since time.Time, fn func(AuditEntry) error) error {
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
			e.RequestID = ev.auditRequestID
			return fn(e)
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
