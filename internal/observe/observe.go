// Package observe decides what an observation of a deployed app means for an instance: its
// fingerprint (what the observer compares against), the Running condition it implies, the
// resources' cluster-status, and when the last observation is too old to trust. Pure: no I/O,
// so workflows, activities and the CLI all use it.
package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Reasons the Running condition takes from an observation.
const (
	ReasonHealthy     = "Healthy"
	ReasonMissing     = "Missing"
	ReasonDegraded    = "Degraded"
	ReasonSuspended   = "Suspended"
	ReasonOutOfSync   = "OutOfSync"
	ReasonProgressing = "Progressing"
	ReasonStale       = "Stale"
)

// DefaultInterval is how often the deployer observer looks, unless a worker is told otherwise.
const DefaultInterval = 30 * time.Second

// StaleAfter is how many observer intervals without an observation make status untrustworthy.
const StaleAfter = 3

// FingerprintStale is what an instance records when the observer could not see its app.
const FingerprintStale = "stale"

// Fingerprint is a short, stable digest of what matters in an app's status: whether it exists,
// its sync and health, and each resource's sync, cluster-status and health. Messages and
// times are left out, so a quiet app keeps its fingerprint and the observer sends nothing.
func Fingerprint(app contract.AppStatus) string {
	if !app.Deployed {
		return "missing"
	}
	lines := make([]string, 0, len(app.Resources))
	for _, r := range app.Resources {
		lines = append(lines, strings.Join([]string{r.Group, r.Kind, r.Namespace, r.Name, r.RsyncStatus, r.ClusterStatus, r.Health}, "\x1f"))
	}
	sort.Strings(lines)
	h := sha256.New()
	h.Write([]byte(app.Sync + "\x1e" + app.Health + "\x1e"))
	for _, l := range lines {
		h.Write([]byte(l + "\x1e"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Changed reports whether the app differs from what the instance last recorded.
func Changed(recorded string, app contract.AppStatus) bool {
	return recorded != Fingerprint(app)
}

// Running is the Running condition an observed app implies. Health decides first (Missing,
// Degraded, Suspended), then sync (OutOfSync); Progressing is neither up nor down.
func Running(app contract.AppStatus, at time.Time) lifecycle.Condition {
	c := lifecycle.Condition{Type: lifecycle.CondRunning, Status: lifecycle.ConditionFalse, Message: app.Message, ObservedAt: at}
	switch {
	case !app.Deployed || app.Health == ReasonMissing:
		c.Reason = ReasonMissing
		if !app.Deployed {
			c.Message = "the application is gone from the deployer"
		}
	case app.Health == ReasonDegraded:
		c.Reason = ReasonDegraded
	case app.Health == ReasonSuspended:
		c.Reason = ReasonSuspended
	case app.Sync == ReasonOutOfSync:
		c.Reason = ReasonOutOfSync
	case app.Health == ReasonProgressing:
		c.Status, c.Reason = lifecycle.ConditionUnknown, ReasonProgressing
	case app.Sync == "Synced" && app.Health == ReasonHealthy:
		c.Status, c.Reason, c.Message = lifecycle.ConditionTrue, ReasonHealthy, "Synced and Healthy"
	default:
		c.Status, c.Reason = lifecycle.ConditionUnknown, firstNonEmpty(app.Health, app.Sync, "Unknown")
	}
	return c
}

// StaleRunning is Running when nothing has been observed for StaleAfter intervals.
func StaleRunning(last time.Time, at time.Time) lifecycle.Condition {
	msg := "no observation of the app"
	if !last.IsZero() {
		msg += " since " + last.UTC().Format(time.RFC3339)
	}
	return lifecycle.Condition{Type: lifecycle.CondRunning, Status: lifecycle.ConditionUnknown, Reason: ReasonStale,
		Message: msg, ObservedAt: at}
}

// Resources are the instance's resources after an observation: what the deployer reports, or,
// when the app is gone, the recorded ones marked NotPresent (EMCO's cluster-status).
func Resources(recorded []contract.Resource, app contract.AppStatus) []contract.Resource {
	if app.Deployed {
		return app.Resources
	}
	out := make([]contract.Resource, len(recorded))
	for i, r := range recorded {
		r.ClusterStatus, r.Health, r.Message = "NotPresent", ReasonMissing, ""
		out[i] = r
	}
	return out
}

// IsStale reports whether an observation at last is too old at now for an observer that
// looks every interval.
func IsStale(last time.Time, interval time.Duration, now time.Time) bool {
	return interval > 0 && now.Sub(last) > StaleAfter*interval
}

// Observed reports whether the observer watches an instance in state s: where an app is
// expected, or where a failed operation may have left one half-changed.
func Observed(s lifecycle.State) bool {
	return s == lifecycle.Deployed || (s.Failed() && s != lifecycle.ProvisioningFailed)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Sweep is what an observer says of itself: when it last listed the apps, and how often it does.
type Sweep struct {
	Last     time.Time
	Interval time.Duration
}

// Freshen brings Running and Ready up to what is known at now, and returns when the app was
// last seen. A sweep after the recorded observation that told the instance nothing saw its app
// unchanged, so Running and Ready held then. Nothing seen for StaleAfter intervals makes them
// Unknown (Stale): status never claims Ready from memory.
func Freshen(conds []lifecycle.Condition, recorded time.Time, sweep Sweep, now time.Time) ([]lifecycle.Condition, time.Time) {
	seen := recorded
	if sweep.Last.After(seen) {
		seen = sweep.Last
	}
	interval := sweep.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	out := make([]lifecycle.Condition, len(conds))
	copy(out, conds)
	var programmed, running lifecycle.Condition
	ri := -1
	for i, c := range out {
		switch c.Type {
		case lifecycle.CondProgrammed:
			programmed = c
		case lifecycle.CondRunning:
			running, ri = c, i
			if seen.After(c.ObservedAt) {
				running.ObservedAt = seen
			}
		}
	}
	if ri < 0 {
		return out, seen
	}
	if IsStale(seen, interval, now) {
		running = StaleRunning(seen, now)
	}
	out[ri] = running
	for i, c := range out {
		if c.Type == lifecycle.CondReady {
			out[i] = lifecycle.ReadyFrom(programmed, running)
		}
	}
	return out, seen
}

// Terminated are resources a removal took away: rsync-status Terminated and cluster-status
// NotPresent, as EMCO shows them after a terminate, rather than gone from the status.
func Terminated(rs []contract.Resource) []contract.Resource {
	out := make([]contract.Resource, len(rs))
	for i, r := range rs {
		r.RsyncStatus, r.ClusterStatus, r.Health, r.Message = "Terminated", "NotPresent", "", ""
		out[i] = r
	}
	return out
}
