package contract

import "time"

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
	Apps      int       `json:"apps"`      // Applications the deployer listed
	Instances int       `json:"instances"` // instances watched
	Signalled int       `json:"signalled"` // instances whose app changed, told so
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
