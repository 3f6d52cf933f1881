package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func TestHookStateTellsBOSHsNextState(t *testing.T) {
	for st, want := range map[lifecycle.State][3]string{
		lifecycle.Deployed:      {"updated", "running", "attached"},
		lifecycle.Archived:      {"updated", "stopped", "detached"},
		lifecycle.Destroyed:     {"deleted", "deleted", "detached"},
		lifecycle.Deprovisioned: {"deleted", "deleted", "detached"},
	} {
		hs := hookState(st, lifecycle.OpDeploy, "")
		require.Equal(t, want, [3]string{hs.Deployment, hs.Instance, hs.Disk}, st)
	}
}

func TestReplaceStateNamesWhatGoesAndTheDisk(t *testing.T) {
	plan := func(rcs ...contract.ResourceChange) contract.PlanSummary { return contract.PlanSummary{Resources: rcs} }
	replace := []string{"create", "delete"}
	cases := []struct {
		name           string
		plan           contract.PlanSummary
		workloads      []string
		recreate       bool
		instance, disk string
		replaced       []string
	}{
		{name: "a replace recreates, disk attached",
			plan:     plan(contract.ResourceChange{Address: "terraform_data.app", Type: "terraform_data", Actions: []string{"delete", "create"}}),
			instance: "recreated", disk: "attached", replaced: []string{"terraform_data.app"}},
		{name: "a stateful replace makes the disk unavailable",
			plan:     plan(contract.ResourceChange{Address: "terraform_data.db[0]", Type: "terraform_data", Actions: replace}),
			instance: "recreated", disk: "unavailable", replaced: []string{"terraform_data.db[0]"}},
		{name: "a delete alone keeps the instance running",
			plan: plan(contract.ResourceChange{Address: "terraform_data.cache", Actions: []string{"delete"}},
				contract.ResourceChange{Address: "terraform_data.db", Actions: []string{"update"}}),
			instance: "running", disk: "attached", replaced: []string{"terraform_data.cache"}},
		{name: "a stateful delete detaches the disk",
			plan:     plan(contract.ResourceChange{Address: "terraform_data.db", Actions: []string{"delete"}}),
			instance: "running", disk: "detached", replaced: []string{"terraform_data.db"}},
		{name: "a recreated workload", workloads: []string{"Deployment/web"},
			instance: "recreated", disk: "attached", replaced: []string{"Deployment/web"}},
		{name: "recreate asked for", recreate: true, instance: "recreated", disk: "attached"},
	}
	for _, c := range cases {
		hs := replaceState("why", c.plan, []string{"terraform_data.db"}, c.workloads, c.recreate)
		require.Equal(t, "Deployed", hs.State, c.name)
		require.Equal(t, "updated", hs.Deployment, c.name)
		require.Equal(t, c.instance, hs.Instance, c.name)
		require.Equal(t, c.disk, hs.Disk, c.name)
		require.Equal(t, c.replaced, hs.Replaced, c.name)
	}
	// A type in stateful: matches every resource of that type.
	hs := replaceState("", plan(contract.ResourceChange{Address: "terraform_data.other", Type: "terraform_data", Actions: replace}),
		[]string{"terraform_data"}, nil, false)
	require.Equal(t, "unavailable", hs.Disk)
}
