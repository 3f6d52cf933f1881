package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ListItem is one instance as the visibility store (and the Temporal UI) sees it.
type ListItem struct {
	Tenant  string `json:"tenant"`
	Name    string `json:"name"`
	State   string `json:"state"`
	Ready   string `json:"ready,omitempty"` // the Ready condition as last observed: True, False or Unknown
	Stack   string `json:"stack,omitempty"`
	Release string `json:"release,omitempty"` // the stack release it runs ("web@1.5.0"); "" on main's head
	Rollout string `json:"rollout,omitempty"` // the rollout that last deployed it
	Drifted string `json:"drifted,omitempty"` // the last drift check: True or False
	Gated   bool   `json:"gated,omitempty"`   // scheduling gates are set
	// AwaitingApproval: an operation waits for its plan to be approved.
	AwaitingApproval bool `json:"awaitingApproval,omitempty"`
	// Retrying: a step of the running operation keeps failing and is retried (CondRetrying).
	Retrying bool       `json:"retrying,omitempty"`
	Running  bool       `json:"running"`
	Started  time.Time  `json:"started"`          // this run of the entity workflow
	Closed   *time.Time `json:"closed,omitempty"` // when the instance's workflow ended
}

// ListFilter narrows List; empty fields match everything.
type ListFilter struct {
	Tenant string
	State  string
	Ready  string // True, False or Unknown
	Stack  string
	// Drifted is the last drift check's verdict: True or False.
	Drifted string
	// Gated lists only instances with scheduling gates set.
	Gated bool
	// AwaitingApproval lists only instances whose operation waits for approval.
	AwaitingApproval bool
	// Retrying lists only instances whose running step is Retrying.
	Retrying bool
	// ExpiringBefore, when set, lists only instances whose expiry ends before it.
	ExpiringBefore time.Time
	// All includes closed entities (Deprovisioned, or never provisioned).
	All bool
}

// Query is the visibility query for f, the same one that works in the Temporal UI.
func (f ListFilter) Query() string {
	q := []string{fmt.Sprintf("WorkflowType = '%s'", contract.InstanceWorkflowName)}
	if f.Tenant != "" {
		q = append(q, "Tenant = "+literal(f.Tenant))
	}
	if f.State != "" {
		q = append(q, "InstanceState = "+literal(f.State))
	}
	if f.Stack != "" {
		q = append(q, contract.SAInstanceStack.GetName()+" = "+literal(f.Stack))
	}
	if f.Gated {
		q = append(q, fmt.Sprintf("%s = true", contract.SAInstanceGated.GetName()))
	}
	if f.AwaitingApproval {
		q = append(q, fmt.Sprintf("%s = true", contract.SAInstanceAwaitingApproval.GetName()))
	}
	if f.Retrying {
		q = append(q, fmt.Sprintf("%s = true", contract.SAInstanceRetrying.GetName()))
	}
	if !f.ExpiringBefore.IsZero() {
		q = append(q, fmt.Sprintf("%s < '%s'", contract.SAInstanceExpiresAt.GetName(), f.ExpiringBefore.UTC().Format(time.RFC3339)))
	}
	if f.Drifted != "" {
		q = append(q, contract.SAInstanceDrifted.GetName()+" = "+literal(f.Drifted))
	}
	if f.Ready != "" {
		q = append(q, contract.SAInstanceReady.GetName()+" = "+literal(f.Ready))
	}
	if !f.All && f.State == "" {
		q = append(q, "ExecutionStatus = 'Running'")
	}
	return strings.Join(q, " AND ")
}

// literal is v as a string of Temporal's list query: a quote or backslash in v stays in the string
// (doubled quote, escaped backslash), so a value never adds a clause.
func literal(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(v) + "'"
}

// List returns the instances matching f, following every page.
func (c *Client) List(ctx context.Context, f ListFilter) ([]ListItem, error) {
	var items []ListItem
	var token []byte
	for {
		page, next, err := c.ListPage(ctx, f, 0, token)
		if err != nil {
			return nil, err
		}
		items = append(items, page...)
		if token = next; len(token) == 0 {
			return items, nil
		}
	}
}

// ListPage returns one page of at most size instances matching f (0: the server's page size)
// from token (nil: the first), and the token of the next page, nil after the last.
func (c *Client) ListPage(ctx context.Context, f ListFilter, size int, token []byte) ([]ListItem, []byte, error) {
	resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: c.Namespace, Query: f.Query(), PageSize: int32(size), NextPageToken: token,
	})
	if err != nil {
		return nil, nil, err
	}
	items := make([]ListItem, 0, len(resp.Executions))
	for _, ex := range resp.Executions {
		it := ListItem{Running: ex.GetCloseTime() == nil, Started: ex.GetStartTime().AsTime()}
		if ct := ex.GetCloseTime(); ct != nil {
			closed := ct.AsTime()
			it.Closed = &closed
		}
		fields := ex.GetSearchAttributes().GetIndexedFields()
		for key, dst := range map[string]*string{"Tenant": &it.Tenant, "InstanceName": &it.Name, "InstanceState": &it.State,
			contract.SAInstanceReady.GetName(): &it.Ready, contract.SAInstanceStack.GetName(): &it.Stack,
			contract.SAInstanceRollout.GetName(): &it.Rollout, contract.SAInstanceDrifted.GetName(): &it.Drifted} {
			if p, ok := fields[key]; ok {
				_ = converter.GetDefaultDataConverter().FromPayload(p, dst)
			}
		}
		if p, ok := fields[contract.SAInstanceRelease.GetName()]; ok {
			var r []string
			if converter.GetDefaultDataConverter().FromPayload(p, &r) == nil && len(r) > 0 {
				it.Release = r[0]
			}
		}
		if p, ok := fields[contract.SAInstanceGated.GetName()]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &it.Gated)
		}
		if p, ok := fields[contract.SAInstanceAwaitingApproval.GetName()]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &it.AwaitingApproval)
		}
		if p, ok := fields[contract.SAInstanceRetrying.GetName()]; ok {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &it.Retrying)
		}
		items = append(items, it)
	}
	return items, resp.NextPageToken, nil
}
