package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// SignalObserved carries an Observation from the deployer observer to an instance.
const SignalObserved = "app-observed"

// Observation is what the deployer reported about an instance's app at one moment.
type Observation struct {
	App         AppStatus `json:"app"`
	Fingerprint string    `json:"fingerprint"`
	At          time.Time `json:"at"`
	Observer    string    `json:"observer"`
	// Stale says the observer could not see the app (the deployer did not answer for
	// several intervals); App is then empty.
	Stale bool `json:"stale,omitempty"`
	// Interval is how often the observer looks (0 for an observation made on request).
	Interval time.Duration `json:"interval,omitempty"`
}

// ObserveAppsInput asks for one sweep of a deployer connection's apps.
type ObserveAppsInput struct {
	Observer string `json:"observer"`
	// MarkStale skips the deployer and tells every watched instance it is no longer observed.
	MarkStale bool `json:"markStale,omitempty"`
	// LastSeen is the time of the observer's last successful sweep, for the stale message.
	LastSeen time.Time `json:"lastSeen,omitzero"`
	// Interval is how often the observer sweeps; each observation carries it.
	Interval time.Duration `json:"interval"`
}

// ObserveAppsOutput counts one sweep: the only things that cost workflow tasks are Signalled.
type ObserveAppsOutput struct {
	At        time.Time `json:"at"`
	Apps      int       `json:"apps"`               // Applications the deployer listed
	Instances int       `json:"instances"`          // instances watched
	Signalled int       `json:"signalled"`          // instances whose app changed, told so
	CaughtUp  int       `json:"caughtUp,omitempty"` // syncs started on clusters that came back (ClusterStatus.Behind)
}

// ObserveAppInput asks for one instance's app now (status --refresh).
type ObserveAppInput struct {
	Ref Ref `json:"ref"`
}

// ObserverWorkflowID names the one observer of a deployer connection for the workers of a task
// queue: workers configured alike start the same one.
func ObserverWorkflowID(taskQueue, connection string) string {
	return "observer/" + taskQueue + "/" + connection
}

// UpdateRefresh asks an instance to observe its app now and returns its status.
const UpdateRefresh = "refresh"

// Observed is the last observation an instance recorded of its app.
type Observed struct {
	At          time.Time     `json:"at"`
	Fingerprint string        `json:"fingerprint"`
	Observer    string        `json:"observer,omitempty"`
	Interval    time.Duration `json:"interval,omitempty"`
}

// ObservedEvent is one observed change of the app: Running and Ready before and after.
type ObservedEvent struct {
	At          time.Time           `json:"at"`
	Running     lifecycle.Condition `json:"running"`
	FromRunning string              `json:"fromRunning"` // Status/Reason before
	FromReady   string              `json:"fromReady"`
	ToReady     string              `json:"toReady"`
}

// ObserverConfig is what a starting worker tells a running observer.
type ObserverConfig struct {
	Interval time.Duration `json:"interval"`
}

// ObserverState is what the observer knows of its own sweeps; the query returns it.
type ObserverState struct {
	Interval    time.Duration     `json:"interval"`
	Started     time.Time         `json:"started"`
	LastSweep   time.Time         `json:"lastSweep,omitzero"` // the last sweep that listed the apps
	Failures    int               `json:"failures"`           // sweeps failed in a row
	LastError   string            `json:"lastError,omitempty"`
	StaleMarked bool              `json:"staleMarked,omitempty"` // watched instances were told they are not observed
	Sweeps      int               `json:"sweeps"`
	Signalled   int               `json:"signalled"` // instances told of a change, over every run
	Last        ObserveAppsOutput `json:"last"`
}

func (st *ObserverState) Apply(cfg ObserverConfig) {
	if cfg.Interval > 0 {
		st.Interval = cfg.Interval
	}
}

// The observer workflow and its query.
const (
	ObserverWorkflowName = "DeployerObserverWorkflow"
	QueryObserver        = "observer"
)
