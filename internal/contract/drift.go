package contract

import "github.com/slipway-dev/slipway/internal/identity"

// Drift activities.
const (
	ActCheckDrift    = "CheckDrift"
	ActDriftInstance = "DriftInstance"
	ActListDeployed  = "ListDeployed"
	// ActListDeployedPage lists one page of a sweep's scope (DriftPageInput), so no run carries the whole fleet.
	ActListDeployedPage = "ListDeployedPage"
)

// DriftInput asks whether an instance still matches the config it was deployed from.
type DriftInput struct {
	Ref      Ref    `json:"ref"`
	Revision string `json:"revision"` // the deployed revision
	CheckID  string `json:"checkID"`
}

// DriftOutput is what a drift check found; each entry is "address (actions)".
type DriftOutput struct {
	Drifted bool `json:"drifted"`
	// Outside changed outside terraform (refreshed objects); Pending an apply of the deployed
	// config would change; App the deployer reports out of sync.
	Outside []string `json:"outside,omitempty"`
	Pending []string `json:"pending,omitempty"`
	App     []string `json:"app,omitempty"`
}

// Resources lists every drifted entry.
func (d DriftOutput) Resources() []string {
	return append(append(append([]string(nil), d.Outside...), d.Pending...), d.App...)
}

// DriftScope is the instances a drift sweep checks, and what it does about drift.
type DriftScope struct {
	Stack  string `json:"stack,omitempty"`
	Tenant string `json:"tenant,omitempty"`
	// Concurrency bounds the checks at once (0: the default).
	Concurrency int `json:"concurrency,omitempty"`
	// Remediate is "" (report only) or "deploy": a normal deploy of each drifted instance.
	Remediate string `json:"remediate,omitempty"`
	// Schedule is the Temporal Schedule that started the sweep, if any.
	Schedule string `json:"schedule,omitempty"`
	// Resume carries a sweep across continue-as-new: what is left to check and what was found.
	Resume *DriftResume `json:"resume,omitempty"`
	// Requester is the person a sweep checks and remediates for (on behalf of): who started it,
	// or who created its schedule. Only slipway sets it.
	Requester *identity.Actor `json:"requester,omitempty"`
}

// DriftResume is a sweep's progress: where its listing goes on (or, in runs from before pages,
// the instances still to check), the counts so far, and the outcomes worth reading (every one but clean).
type DriftResume struct {
	Left []ListedInstance `json:"left,omitempty"`
	// Paged: the sweep lists a page a run, and Page is the visibility store's token for the next one.
	Paged   bool                  `json:"paged,omitempty"`
	Page    []byte                `json:"page,omitempty"`
	Checked int                   `json:"checked"`
	Drifted int                   `json:"drifted"`
	Notable []DriftInstanceOutput `json:"notable,omitempty"`
}

// DriftPageInput asks for one page of the instances in a sweep's scope.
type DriftPageInput struct {
	Stack  string `json:"stack,omitempty"`
	Tenant string `json:"tenant,omitempty"`
	Size   int    `json:"size"`
	Page   []byte `json:"page,omitempty"` // nil: the first page
}

// DriftPage is one page's Deployed instances and the token of the next page (nil after the last).
type DriftPage struct {
	Instances []ListedInstance `json:"instances,omitempty"`
	Next      []byte           `json:"next,omitempty"`
}

// RemediateDeploy is the drift policy that deploys a drifted instance again.
const RemediateDeploy = "deploy"

// MaxDriftConcurrency bounds a sweep's checks at once (each is a terraform plan on a worker):
// the CLI and `slipway server` refuse a larger concurrency.
const MaxDriftConcurrency = 64

// DriftInstanceInput asks one instance to check itself (its entity runs the check, so it never
// overlaps an operation) and, under RemediateDeploy, to deploy again if it drifted.
type DriftInstanceInput struct {
	Ref       Ref    `json:"ref"`
	Sweep     string `json:"sweep"` // the sweep's workflow ID: the request ID's base and the actor
	Remediate string `json:"remediate,omitempty"`
	// OnBehalfOf is the sweep's requester: the check and the remediating deploy are sent for them.
	OnBehalfOf *identity.Actor `json:"onBehalfOf,omitempty"`
}

// Outcomes of one instance in a sweep.
const (
	DriftClean      = "clean"
	DriftFound      = "drifted"
	DriftBusy       = "busy"
	DriftRefused    = "refused"
	DriftRemediated = "remediating"
)

// DriftInstanceOutput is one instance's outcome in a sweep.
type DriftInstanceOutput struct {
	Ref       Ref      `json:"ref"`
	Outcome   string   `json:"outcome"`
	Resources []string `json:"resources,omitempty"`
	Message   string   `json:"message,omitempty"`
}

// DriftRequest is the argument of check-drift.
type DriftRequest struct {
	Actor string `json:"actor,omitempty"`
}

// DriftSweepResult is what one sweep found, instance by instance.
type DriftSweepResult struct {
	Checked   int                   `json:"checked"`
	Drifted   int                   `json:"drifted"`
	Instances []DriftInstanceOutput `json:"instances"`
}
