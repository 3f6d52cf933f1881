package client

import (
	"context"
	"slices"
)

// StackCount is a stack's standing counts (Datum's ReadyReplicas), for all its tenants
// (Tenant "") or one: Total running instances, Ready ones (Ready True, as last observed), and
// Updated ones: in state Deployed, so the config last merged for them on main is the one
// deployed and nothing newer waits. Each is one visibility count, the query in Queries, which
// the Temporal UI runs as well.
type StackCount struct {
	Stack   string            `json:"stack"`
	Tenant  string            `json:"tenant,omitempty"`
	Ready   int64             `json:"ready"`
	Updated int64             `json:"updated"`
	Total   int64             `json:"total"`
	Queries map[string]string `json:"queries"`
}

// StackFilters are the visibility filters of a stack's counts, by count.
func StackFilters(stack, tenant string) map[string]ListFilter {
	return map[string]ListFilter{
		"total":   {Stack: stack, Tenant: tenant},
		"ready":   {Stack: stack, Tenant: tenant, Ready: "True"},
		"updated": {Stack: stack, Tenant: tenant, State: "Deployed"},
	}
}

// StackCounts are the stack's counts over all its tenants, then per tenant (by name), or for
// the one tenant given. known says whether any instance, closed ones included, ever had the stack.
func (c *Client) StackCounts(ctx context.Context, stack, tenant string) (counts []StackCount, known bool, err error) {
	ever, err := c.count(ctx, ListFilter{Stack: stack, Tenant: tenant, All: true}.Query())
	if err != nil || ever == 0 {
		return nil, false, err
	}
	tenants := []string{tenant}
	if tenant == "" {
		items, err := c.List(ctx, ListFilter{Stack: stack})
		if err != nil {
			return nil, true, err
		}
		tenants = []string{""}
		for _, it := range items {
			if !slices.Contains(tenants, it.Tenant) {
				tenants = append(tenants, it.Tenant)
			}
		}
		slices.Sort(tenants[1:])
	}
	for _, t := range tenants {
		sc := StackCount{Stack: stack, Tenant: t, Queries: map[string]string{}}
		for name, f := range StackFilters(stack, t) {
			q := f.Query()
			n, err := c.count(ctx, q)
			if err != nil {
				return nil, true, err
			}
			sc.Queries[name] = q
			switch name {
			case "total":
				sc.Total = n
			case "ready":
				sc.Ready = n
			case "updated":
				sc.Updated = n
			}
		}
		counts = append(counts, sc)
	}
	return counts, true, nil
}
