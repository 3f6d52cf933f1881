package windows

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Wave is one planned wave: instances (TENANT/NAME) of one tenant, started at a window opening.
type Wave struct {
	At        time.Time
	Tenant    string
	Instances []string
}

// Openings are up to n times in [from, until) when an operation covered by s may start: from
// itself when s is open then, and each later opening (a closed period turning open).
func (s Set) Openings(from, until time.Time, n int) []time.Time {
	var out []time.Time
	open := s.open(from, nil)
	if open {
		out = append(out, from.UTC())
	}
	t := from
	for steps := 0; len(out) < n && t.Before(until) && steps < maxSteps; steps++ {
		t = s.nextEdge(t)
		now := s.open(t, nil)
		if now && !open && t.Before(until) {
			out = append(out, t.UTC())
		}
		open = now
	}
	return out
}

// PlanWaves plans instances (TENANT/NAME) of stack into waves of at most size each, one wave per
// opening of their tenant's windows (the windows covering that tenant and stack) from now; a
// tenant no window covers has its waves at now, one after the other. The instances of a wave
// that would open at or after by are missed.
func (s Set) PlanWaves(stack string, instances []string, size int, now, by time.Time) (waves []Wave, missed []string) {
	size = max(size, 1)
	byTenant := map[string][]string{}
	var tenants []string
	for _, ref := range instances {
		t, _, _ := strings.Cut(ref, "/")
		if byTenant[t] == nil {
			tenants = append(tenants, t)
		}
		byTenant[t] = append(byTenant[t], ref)
	}
	slices.Sort(tenants)
	for _, t := range tenants {
		refs := slices.Sorted(slices.Values(byTenant[t]))
		n := (len(refs)-1)/size + 1 // not (len+size-1)/size: a huge size would overflow to no wave
		ws := s.For(t, stack, nil)  // labels are not known here: a label-scoped window holds the wave's deploy itself
		var at []time.Time
		if len(ws) == 0 {
			for range n {
				at = append(at, now.UTC())
			}
		} else {
			at = ws.Openings(now, by, n)
		}
		for i := range n {
			chunk := refs[i*size : min((i+1)*size, len(refs))]
			if i >= len(at) {
				missed = append(missed, chunk...)
				continue
			}
			waves = append(waves, Wave{At: at[i], Tenant: t, Instances: chunk})
		}
	}
	slices.SortStableFunc(waves, func(a, b Wave) int { return cmp.Or(a.At.Compare(b.At), strings.Compare(a.Tenant, b.Tenant)) })
	return waves, missed
}
