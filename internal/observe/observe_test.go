package observe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func healthy() contract.AppStatus {
	return contract.AppStatus{Deployer: "argocd", Deployed: true, Sync: "Synced", Health: "Healthy", Message: "operation Succeeded",
		Resources: []contract.Resource{
			{App: "web", Cluster: "in-cluster", Version: "v1", Kind: "Namespace", Name: "acme-web", RsyncStatus: "Applied", ClusterStatus: "Present"},
			{App: "web", Cluster: "in-cluster", Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "app", RsyncStatus: "Applied", ClusterStatus: "Present"},
		}}
}

func TestUnchangedAppGivesNoSignal(t *testing.T) {
	a := healthy()
	b := healthy()
	b.Message = "operation Succeeded: a different message" // messages and times do not count
	b.Resources[0], b.Resources[1] = b.Resources[1], b.Resources[0]
	require.False(t, Changed(Fingerprint(a), b))
	require.Len(t, Fingerprint(a), 16)

	for name, change := range map[string]func(*contract.AppStatus){
		"health":        func(s *contract.AppStatus) { s.Health = "Degraded" },
		"sync":          func(s *contract.AppStatus) { s.Sync = "OutOfSync" },
		"gone":          func(s *contract.AppStatus) { s.Deployed = false },
		"resource gone": func(s *contract.AppStatus) { s.Resources[1].ClusterStatus = "NotPresent" },
		"resource added": func(s *contract.AppStatus) {
			s.Resources = append(s.Resources, contract.Resource{Kind: "Secret", Name: "web"})
		},
		"resource rsync": func(s *contract.AppStatus) { s.Resources[0].RsyncStatus = "Retrying" },
	} {
		c := healthy()
		change(&c)
		require.True(t, Changed(Fingerprint(a), c), name)
	}
	require.True(t, Changed("", a), "an instance that recorded nothing is told once")
}

func TestEveryReasonMapsToItsConditions(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	programmed := lifecycle.Condition{Type: lifecycle.CondProgrammed, Status: lifecycle.ConditionTrue, Reason: "Applied"}
	cases := []struct {
		name          string
		sync, health  string
		deployed      bool
		status        lifecycle.ConditionStatus
		reason, ready string
	}{
		{"synced and healthy", "Synced", "Healthy", true, lifecycle.ConditionTrue, ReasonHealthy, "True"},
		{"application deleted", "", "", false, lifecycle.ConditionFalse, ReasonMissing, "False"},
		{"resources missing", "OutOfSync", "Missing", true, lifecycle.ConditionFalse, ReasonMissing, "False"},
		{"degraded", "Synced", "Degraded", true, lifecycle.ConditionFalse, ReasonDegraded, "False"},
		{"degraded and out of sync: health first", "OutOfSync", "Degraded", true, lifecycle.ConditionFalse, ReasonDegraded, "False"},
		{"suspended", "Synced", "Suspended", true, lifecycle.ConditionFalse, ReasonSuspended, "False"},
		{"out of sync", "OutOfSync", "Healthy", true, lifecycle.ConditionFalse, ReasonOutOfSync, "False"},
		{"progressing", "Synced", "Progressing", true, lifecycle.ConditionUnknown, ReasonProgressing, "Unknown"},
		{"unknown health", "Unknown", "Unknown", true, lifecycle.ConditionUnknown, "Unknown", "Unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Running(contract.AppStatus{Deployed: c.deployed, Sync: c.sync, Health: c.health}, at)
			require.Equal(t, lifecycle.CondRunning, r.Type)
			require.Equal(t, c.status, r.Status)
			require.Equal(t, c.reason, r.Reason)
			require.Equal(t, at, r.ObservedAt)
			ready := lifecycle.ReadyFrom(programmed, r)
			require.Equal(t, c.ready, string(ready.Status))
			require.Equal(t, at, ready.ObservedAt, "Ready is as fresh as Running")
		})
	}
}

func TestGoneAppMarksRecordedResourcesNotPresent(t *testing.T) {
	rec := healthy().Resources
	got := Resources(rec, contract.AppStatus{Deployed: false})
	require.Len(t, got, 2)
	for _, r := range got {
		require.Equal(t, "NotPresent", r.ClusterStatus)
		require.Equal(t, ReasonMissing, r.Health)
		require.Equal(t, "Applied", r.RsyncStatus, "what was applied stays on record")
	}
	require.Equal(t, "Present", rec[0].ClusterStatus, "the recorded slice is not changed in place")
	live := healthy()
	require.Equal(t, live.Resources, Resources(nil, live))
}

func TestStaleObservationsBecomeUnknown(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	conds := []lifecycle.Condition{
		{Type: lifecycle.CondProgrammed, Status: lifecycle.ConditionTrue, Reason: "Applied", ObservedAt: t0},
		{Type: lifecycle.CondRunning, Status: lifecycle.ConditionTrue, Reason: ReasonHealthy, ObservedAt: t0},
		{Type: lifecycle.CondReady, Status: lifecycle.ConditionTrue, Reason: "ProgrammedAndRunning", ObservedAt: t0},
	}
	interval := 30 * time.Second

	// A sweep after the recorded observation vouches for it.
	got, seen := Freshen(conds, t0, Sweep{Last: t0.Add(60 * time.Second), Interval: interval}, t0.Add(70*time.Second))
	require.Equal(t, t0.Add(60*time.Second), seen)
	require.Equal(t, lifecycle.ConditionTrue, got[1].Status)
	require.Equal(t, seen, got[1].ObservedAt)
	require.Equal(t, lifecycle.ConditionTrue, got[2].Status)
	require.Equal(t, t0, conds[1].ObservedAt, "the input is not changed in place")

	// Exactly three intervals is still fresh; past it, stale.
	got, _ = Freshen(conds, t0, Sweep{Interval: interval}, t0.Add(90*time.Second))
	require.Equal(t, lifecycle.ConditionTrue, got[2].Status)
	got, _ = Freshen(conds, t0, Sweep{Interval: interval}, t0.Add(91*time.Second))
	require.Equal(t, lifecycle.ConditionUnknown, got[1].Status)
	require.Equal(t, ReasonStale, got[1].Reason)
	require.Contains(t, got[1].Message, "2026-11-23T12:00:00Z")
	require.Equal(t, lifecycle.ConditionUnknown, got[2].Status, "Ready is never claimed from memory")
	require.Equal(t, ReasonStale, got[2].Reason)
	require.Equal(t, lifecycle.ConditionTrue, got[0].Status, "Programmed is about terraform, not the app")

	// No interval known: the default applies.
	got, _ = Freshen(conds, t0, Sweep{}, t0.Add(3*DefaultInterval+time.Second))
	require.Equal(t, ReasonStale, got[1].Reason)

	// The observer's own stale marking maps the same way.
	r := StaleRunning(t0, t0.Add(time.Hour))
	require.Equal(t, lifecycle.ConditionUnknown, r.Status)
	require.Equal(t, ReasonStale, r.Reason)
}

func TestObservedStates(t *testing.T) {
	want := map[lifecycle.State]bool{lifecycle.Deployed: true, lifecycle.DeploymentFailed: true, lifecycle.ArchiveFailed: true,
		lifecycle.DestroyFailed: true, lifecycle.DeprovisioningFailed: true}
	for _, s := range lifecycle.AllStates {
		require.Equal(t, want[s], Observed(s), s)
	}
}
