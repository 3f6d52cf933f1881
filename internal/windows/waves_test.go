package windows

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// A deadline's waves: acme's instances go in waves of two, one per nightly window opening, and
// a tenant no window covers starts at once; a deadline before the third opening misses the
// instance only that opening would reach, and names it.
func TestPlanWavesFitsTheWindowsAndNamesWhatMissesTheDeadline(t *testing.T) {
	s := set(t, `[{"name": "nightly", "start": "0 22 * * *", "duration": "2h", "stacks": ["web"], "tenants": ["acme"]},
	  {"name": "weekend-freeze", "kind": "deny", "start": "0 0 * * 6", "duration": "24h", "tenants": ["acme"]}]`)
	now := at("2026-11-26T10:00:00Z") // a Thursday
	refs := []string{"acme/e", "acme/a", "beta/x", "acme/c", "acme/b", "acme/d"}

	waves, missed := s.PlanWaves("web", refs, 2, now, at("2026-12-01T00:00:00Z"))
	require.Empty(t, missed)
	require.Equal(t, []Wave{
		{At: now, Tenant: "beta", Instances: []string{"beta/x"}},
		{At: at("2026-11-26T22:00:00Z"), Tenant: "acme", Instances: []string{"acme/a", "acme/b"}},
		// Friday 22:00 runs into Saturday's freeze: open only until midnight, still an opening.
		{At: at("2026-11-27T22:00:00Z"), Tenant: "acme", Instances: []string{"acme/c", "acme/d"}},
		// Saturday's window lies inside the freeze; Sunday's does not.
		{At: at("2026-11-29T22:00:00Z"), Tenant: "acme", Instances: []string{"acme/e"}},
	}, waves)

	waves, missed = s.PlanWaves("web", refs, 2, now, at("2026-11-29T22:00:00Z"))
	require.Equal(t, []string{"acme/e"}, missed, "an opening at the deadline itself is too late")
	require.Len(t, waves, 3)

	// Planned inside an open window: the first wave starts now.
	waves, _ = s.PlanWaves("web", []string{"acme/a"}, 2, at("2026-11-26T22:30:00Z"), at("2026-12-01T00:00:00Z"))
	require.Equal(t, at("2026-11-26T22:30:00Z"), waves[0].At)

	// A wave larger than every instance behind is one wave of them all, not none (overflow).
	waves, missed = s.PlanWaves("web", []string{"beta/x", "beta/y"}, math.MaxInt, now, at("2026-12-01T00:00:00Z"))
	require.Empty(t, missed)
	require.Equal(t, []Wave{{At: now, Tenant: "beta", Instances: []string{"beta/x", "beta/y"}}}, waves)
}
