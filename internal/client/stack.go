package client

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// StackRequest runs a stack request (cut a release, point a channel, read the releases) as the
// StackWorkflow and waits for its answer. The policy refuses it (RefusedError) unless the actor
// may act across every tenant; bad input is an InvalidConfigError naming the field.
func (c *Client) StackRequest(ctx context.Context, req contract.StackRequest) (contract.StackResult, error) {
	var res contract.StackResult
	if req.ID == "" {
		req.ID = strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	}
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "stack/" + req.Stack + "/" + req.Op + "-" + req.ID, TaskQueue: c.TaskQueue,
		StaticSummary: "stack " + req.Op + " " + req.Stack + " " + req.Version,
	}, contract.StackWorkflowName, req)
	if err != nil {
		return res, err
	}
	return res, translate("stack "+req.Stack, run.Get(ctx, &res))
}

// ReleaseCount is how many instances of a stack run one release in one tenant, and how many of them are Ready.
type ReleaseCount struct {
	Release string `json:"release"` // "web@1.5.0"; "" for main's head
	Tenant  string `json:"tenant"`
	Total   int    `json:"total"`
	Ready   int    `json:"ready"`
}

// ReleaseCounts is the skew of a stack: its running instances counted per release and tenant
// (visibility's InstanceRelease and InstanceReady), newest release first.
func (c *Client) ReleaseCounts(ctx context.Context, stack, tenant string) ([]ReleaseCount, error) {
	items, err := c.List(ctx, ListFilter{Stack: stack, Tenant: tenant})
	if err != nil {
		return nil, err
	}
	return CountReleases(items), nil
}

// CountReleases groups listed instances by release and tenant.
func CountReleases(items []ListItem) []ReleaseCount {
	var out []ReleaseCount
	for _, it := range items {
		i := slices.IndexFunc(out, func(r ReleaseCount) bool { return r.Release == it.Release && r.Tenant == it.Tenant })
		if i < 0 {
			out = append(out, ReleaseCount{Release: it.Release, Tenant: it.Tenant})
			i = len(out) - 1
		}
		out[i].Total++
		if it.Ready == "True" {
			out[i].Ready++
		}
	}
	slices.SortFunc(out, func(a, b ReleaseCount) int {
		return cmp.Or(strings.Compare(a.Release, b.Release), strings.Compare(a.Tenant, b.Tenant))
	})
	return out
}
