package metrics

import (
	"context"
	"time"
)

// DefaultFleetInterval is how often the fleet gauges are counted: each count is one
// visibility query per state, so a 10,000-instance fleet costs the same as ten.
const DefaultFleetInterval = 30 * time.Second

// FleetCounts are the fleet gauges at one time. Every worker counts the same visibility
// store, so each reports the same values: dashboards and alerts take max() over workers.
type FleetCounts struct {
	At               time.Time
	States           map[string]int64 // lifecycle state -> instances
	Ready            map[string]int64 // True/False/Unknown -> running instances
	ApprovalsWaiting int64
	StepsRetrying    int64                // instances whose running step is Retrying (InstanceRetrying)
	Releases         map[ReleaseKey]int64 // running instances per stack, release and Ready (the skew)
	LastSweep        time.Time            // the deployer observer's last sweep; zero: none known
}

// ReleaseKey labels slipway_stack_release_instances: Release is the version ("1.5.0"), or "head"
// for an instance that renders main's head.
type ReleaseKey struct{ Stack, Release, Ready string }

// FleetSource counts the fleet; internal/workerapp builds it on Temporal's visibility.
type FleetSource func(ctx context.Context) (FleetCounts, error)

// SetFleet publishes counts for the next scrapes.
func (m *Metrics) SetFleet(f FleetCounts) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fleet = &f
}

// WatchFleet counts the fleet now and then every interval until ctx ends. A failed count is
// counted in slipway_fleet_refresh_errors_total and leaves the last values (and their
// timestamp, which the alerts watch) in place.
func (m *Metrics) WatchFleet(ctx context.Context, src FleetSource, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultFleetInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if f, err := src(ctx); err == nil {
			m.SetFleet(f)
		} else if ctx.Err() == nil {
			m.refreshErrors.Add(ctx, 1)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
