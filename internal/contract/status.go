package contract

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// Status outputs, as in EMCO's status query.
const (
	OutputSummary = "summary"
	OutputAll     = "all"
	OutputDetail  = "detail"
	// OutputRsync is what was rendered for each resource (metadata and spec, no status).
	OutputRsync = "rsync"
)

// ValidOutput reports whether s is one of the status outputs.
func ValidOutput(s string) bool {
	return s == OutputSummary || s == OutputAll || s == OutputDetail || s == OutputRsync
}

// StatusRequest is the status query's argument; the filters narrow counts and resources.
type StatusRequest struct {
	Output   string `json:"output,omitempty"` // summary (default) | all | detail | rsync
	App      string `json:"app,omitempty"`
	Cluster  string `json:"cluster,omitempty"`
	Resource string `json:"resource,omitempty"` // resource name
}

// Status is an instance's status in EMCO's shape, with Datum's conditions.
type Status struct {
	Name           string                `json:"name"`
	Tenant         string                `json:"tenant"`
	Instance       string                `json:"instance"`
	Stack          string                `json:"stack,omitempty"`
	State          lifecycle.State       `json:"state"`
	Names          *names.Names          `json:"names,omitempty"` // recorded at provision; never recomputed
	Allowed        []lifecycle.Operation `json:"allowedOperations"`
	Deployer       string                `json:"deployer,omitempty"`
	Revision       string                `json:"revision,omitempty"`
	Deployed       string                `json:"deployedRevision,omitempty"`
	Rollout        string                `json:"rollout,omitempty"`      // the rollout that last deployed it
	ControlPlane   string                `json:"controlPlane,omitempty"` // the worker pool that runs its pipelines
	Drift          *DriftRecord          `json:"drift,omitempty"`        // the last drift check
	Gates          []Gate                `json:"gates,omitempty"`        // scheduling gates set now
	Waiting        *GateWait             `json:"waiting,omitempty"`      // the operation held at the gates
	GateLog        []GateRecord          `json:"gateLog,omitempty"`      // output all: every gate change
	Approval       *ApprovalWait         `json:"approval,omitempty"`     // the plan awaiting approval
	ApprovalLog    []ApprovalRecord      `json:"approvalLog,omitempty"`  // output all: every approval event
	Render         *Render               `json:"render,omitempty"`       // output all: the SHA-256 of each file slipway's last merge rendered
	Conditions     []lifecycle.Condition `json:"conditions"`
	Operation      *OperationStatus      `json:"operation,omitempty"`
	Failure        *Failure              `json:"failure,omitempty"`
	RsyncStatus    map[string]int        `json:"rsync-status"`
	ClusterStatus  map[string]int        `json:"cluster-status,omitempty"`
	Resources      []AppResources        `json:"resources,omitempty"`
	Infrastructure []string              `json:"infrastructure,omitempty"`
	Outputs        map[string]string     `json:"outputs,omitempty"`      // terraform outputs after the last apply; sensitive ones "[sensitive]"
	Dependencies   []string              `json:"dependencies,omitempty"` // the instances it depends on (schema.dependencies)
	Dependents     []string              `json:"dependents,omitempty"`   // the instances registered as depending on it: they keep a teardown out
	Protection     *Protection           `json:"protection,omitempty"`   // protected from deletion: destroy and deprovision are refused
	Expiry         *Expiry               `json:"expiry,omitempty"`       // when the instance ends, and how
	Labels         map[string]string     `json:"labels,omitempty"`       // the instance file's labels (change windows select by them)
	Decisions      []DecisionRecord      `json:"decisions,omitempty"`
	Abandoned      []Leftover            `json:"abandonedLeftovers,omitempty"`
	History        []OperationStatus     `json:"history,omitempty"`
	// Observed is the last observation of the app; Observations the changes it saw (output all).
	Observed     *Observed       `json:"observed,omitempty"`
	Observations []ObservedEvent `json:"observations,omitempty"`
	// Refresh says what a status --refresh observed and whether it was applied.
	Refresh string `json:"refresh,omitempty"`
	// ObservedAt is when the app was last seen, counting the observer's sweeps that found it
	// unchanged; ObserverError says why the observer could not be asked. The client sets both.
	ObservedAt    time.Time `json:"observedAt,omitzero"`
	ObserverError string    `json:"observerError,omitempty"`
	// ResourcesError says why the deployer could not be asked for each resource's object
	// (detail, rsync); the client sets it.
	ResourcesError string `json:"resourcesError,omitempty"`
}

// OperationStatus is the last operation with its steps.
type OperationStatus struct {
	ID       string              `json:"id"`
	Kind     lifecycle.Operation `json:"kind"`
	Step     string              `json:"step,omitempty"`
	Result   string              `json:"result"`
	Attempt  int                 `json:"attempt"`
	Pipeline string              `json:"pipeline,omitempty"`
	// Actor is the verified person or component who asked; Note what the request said of its
	// sender, when that differs (free text: never who asked).
	Actor     string        `json:"actor,omitempty"`
	Note      string        `json:"note,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	EndedAt   time.Time     `json:"endedAt,omitempty"`
	Steps     []StepRecord  `json:"steps,omitempty"`
	Plan      *PlanSummary  `json:"plan,omitempty"`
	Diff      string        `json:"diff,omitempty"`
	Cancel    *CancelRecord `json:"cancel,omitempty"` // who stopped it while it ran (cancel-running)
	// Retrying is the running step's activity from its second attempt on (the client reads it
	// from the pipeline's pending activity; the instance records it at RetryingAfter).
	Retrying *StepRetry `json:"retrying,omitempty"`
	// Stalled says why the running operation has not moved: a task no worker took for longer
	// than a worker ever needs (the client reads it from the pipeline; nothing is recorded).
	Stalled string `json:"stalled,omitempty"`
}

// AppResources groups resources by app, then cluster (EMCO).
type AppResources struct {
	App      string             `json:"app-name"`
	Clusters []ClusterResources `json:"clusters"`
}

// ClusterResources are one app's resources on one cluster.
type ClusterResources struct {
	Name      string         `json:"name"`
	Resources []ResourceView `json:"resources"`
}

// ResourceView is one resource; detail adds health and message, and the live object's
// metadata, spec and status; rsync shows the rendered object's metadata and spec only. Spec is
// the object's spec, or for kinds without one (ConfigMap, Secret) its other fields (data).
// The client fills Metadata, Spec and Status from the deployer; a Secret's values are masked.
type ResourceView struct {
	GVK           GVK             `json:"GVK"`
	Name          string          `json:"name"`
	Namespace     string          `json:"namespace,omitempty"`
	RsyncStatus   string          `json:"rsync-status,omitempty"`
	ClusterStatus string          `json:"cluster-status,omitempty"`
	Health        string          `json:"health,omitempty"`
	Message       string          `json:"message,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	Spec          json.RawMessage `json:"spec,omitempty"`
	Status        json.RawMessage `json:"status,omitempty"`
}

// GVK is a Kubernetes group/version/kind.
type GVK struct {
	Group   string `json:"Group"`
	Version string `json:"Version"`
	Kind    string `json:"Kind"`
}

// FilterResources are the resources the request's app, cluster and resource filters pick.
func FilterResources(all []Resource, req StatusRequest) []Resource {
	var out []Resource
	for _, r := range all {
		if (req.App == "" || r.App == req.App) && (req.Cluster == "" || r.Cluster == req.Cluster) &&
			(req.Resource == "" || r.Name == req.Resource) {
			out = append(out, r)
		}
	}
	return out
}

// GroupResources groups resources by app, then cluster (EMCO), as output shows them.
func GroupResources(rs []Resource, output string) []AppResources {
	byApp := map[string]map[string][]ResourceView{}
	for _, r := range rs {
		v := ResourceView{GVK: GVK{r.Group, r.Version, r.Kind}, Name: r.Name, Namespace: r.Namespace, RsyncStatus: r.RsyncStatus}
		if output != OutputRsync {
			v.ClusterStatus = r.ClusterStatus // rsync leaves out what the cluster made of it
		}
		if output == OutputDetail {
			v.Health, v.Message = r.Health, r.Message
		}
		if byApp[r.App] == nil {
			byApp[r.App] = map[string][]ResourceView{}
		}
		byApp[r.App][r.Cluster] = append(byApp[r.App][r.Cluster], v)
	}
	var out []AppResources
	for _, app := range SortedKeys(byApp) {
		ar := AppResources{App: app}
		for _, cl := range SortedKeys(byApp[app]) {
			ar.Clusters = append(ar.Clusters, ClusterResources{Name: cl, Resources: byApp[app][cl]})
		}
		out = append(out, ar)
	}
	return out
}

// SortedKeys is deterministic: the map's order is thrown away by the sort.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	//workflowcheck:ignore
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Counts are EMCO's rsync-status and cluster-status counts of the resources.
func Counts(rs []Resource) (rsync, cluster map[string]int) {
	rsync, cluster = map[string]int{}, map[string]int{}
	for _, r := range rs {
		rsync[r.RsyncStatus]++
		cluster[r.ClusterStatus]++
	}
	return rsync, cluster
}
