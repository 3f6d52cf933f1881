package contract

import (
	"slices"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/names"
)

// Ref names an instance: tenant and name, each a DNS-1123 label.
type Ref struct {
	Tenant string `json:"tenant"`
	Name   string `json:"name"`
	// Names are the instance's namespace, Application and schema, recorded at provision so they
	// are never recomputed; nil before provision and for instances from before they were recorded.
	Names *names.Names `json:"names,omitempty"`
}

func (r Ref) String() string { return r.Tenant + "/" + r.Name }

// ParseRef parses "tenant/name".
func ParseRef(s string) (Ref, error) {
	tenant, name, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(name, "/") {
		return Ref{}, &RefError{Value: s, Message: "must have the form TENANT/NAME"}
	}
	r := Ref{Tenant: tenant, Name: name}
	return r, r.Validate()
}

// Validate checks both parts, for refs that arrive already split (JSON, flags).
func (r Ref) Validate() error {
	if !names.IsLabel(r.Tenant) {
		return &RefError{Part: "tenant", Value: r.Tenant, Message: names.LabelRule}
	}
	if !names.IsLabel(r.Name) {
		return &RefError{Part: "name", Value: r.Name, Message: names.LabelRule}
	}
	return nil
}

// Dir is the instance's directory in the GitOps repository.
func (r Ref) Dir() string { return "instances/" + r.Tenant + "/" + r.Name }

// InstanceWorkflowID is the instance's entity workflow ID, one per instance; activities name it
// in records, so it lives here rather than in workflows.
func InstanceWorkflowID(r Ref) string { return "instance/" + r.Tenant + "/" + r.Name }

// Derived are the recorded names, or for an instance from before names were recorded, the
// names it got then.
func (r Ref) Derived() names.Names {
	if r.Names != nil {
		return *r.Names
	}
	return names.Legacy(r.Tenant, r.Name)
}

// ValidateInput asks whether ConfigYAML is a valid config for the instance.
type ValidateInput struct {
	Ref        Ref    `json:"ref"`
	ConfigYAML string `json:"configYAML"`
	// DeployedRevision is the revision of the last deploy; its config fixes the `initial` fields.
	DeployedRevision string `json:"deployedRevision,omitempty"`
	// Stacks asks, instead of validating a config, for the stacks on main and their schema.yaml
	// (Stack names one): what `slipway server` builds a portal's forms from.
	Stacks bool   `json:"stacks,omitempty"`
	Stack  string `json:"stack,omitempty"`
	// To checks the config (ConfigYAML, else the one on main) pinned to this release (plan --to).
	To string `json:"to,omitempty"`
}

// StackSchema is a stack on main and its schema.yaml ("" when it has none), or a stack only in
// the stacks repository with its default channel's (else last) release's schema.yaml.
type StackSchema struct {
	Name       string `json:"name"`
	SchemaYAML string `json:"schemaYAML,omitempty"`
	// Releases are the versions cut of the stack (its releases file on main), oldest first.
	Releases []string `json:"releases,omitempty"`
}

// ValidateOutput is a valid config's stack.
type ValidateOutput struct {
	Stack string `json:"stack"`
	// Release is the release the config renders ("web@1.5.0", the search attribute InstanceRelease); "" for main's head.
	Release string `json:"release,omitempty"`
	// Gates are the config's schedulingGates.
	Gates []gates.Spec `json:"gates,omitempty"`
	// Controls are the config's approval rule and its stack's hooks.
	Controls *Controls `json:"controls,omitempty"`
	// ControlPlane is the worker pool the config says runs its pipelines ("" for the default).
	ControlPlane string `json:"controlPlane,omitempty"`
	// Dependencies are the TENANT/NAMEs the stack's schema.dependencies name for this config.
	Dependencies []string `json:"dependencies,omitempty"`
	// Protected is why the config protects the instance from deletion (file or stack); "" when not.
	Protected string `json:"protected,omitempty"`
	// Expiry is when the config says the instance ends, and how; nil when it does not.
	Expiry *ExpiryPlan `json:"expiry,omitempty"`
	// Labels are the config's labels, which change windows select instances by.
	Labels map[string]string `json:"labels,omitempty"`
	// StackSchemas answer Stacks, by name.
	StackSchemas []StackSchema `json:"stackSchemas,omitempty"`
}

// OpenMRInput renders the instance (or removes it, for deprovision) and opens one MR.
type OpenMRInput struct {
	Ref        Ref    `json:"ref"`
	Operation  string `json:"operation"`
	OpID       string `json:"opID"`
	ConfigYAML string `json:"configYAML,omitempty"`
	Remove     bool   `json:"remove,omitempty"`
	// Rerender, without ConfigYAML, renders the instance file committed at this revision (one
	// verifyRender checked) against the stack on main: a plain deploy takes the current stack.
	Rerender string `json:"rerender,omitempty"`
	// Archive, without ConfigYAML, is the archive's config change: the instance's files committed at
	// this revision, its instance file marked archived: true (a deploy's render clears it).
	Archive string `json:"archive,omitempty"`
}

// RevisionInput asks for the base head that holds the instance's config.
type RevisionInput struct {
	Ref Ref `json:"ref"`
	// MustExist fails with NotFound when the instance's config is not on the base branch.
	MustExist bool `json:"mustExist"`
}

// RevisionOutput is the base head and whether the config is there.
type RevisionOutput struct {
	Revision string `json:"revision"`
	Exists   bool   `json:"exists"`
	Stack    string `json:"stack,omitempty"`
	Release  string `json:"release,omitempty"` // as ValidateOutput.Release
	// Controls are the committed config's approval rule and its stack's hooks.
	Controls *Controls `json:"controls,omitempty"`
	// Via is the mirror that answered while the forge was down; "" when the forge did.
	Via string `json:"via,omitempty"`
	// UsesOutputs says the stack's manifests use .Outputs: a deploy renders them after its apply.
	UsesOutputs bool `json:"usesOutputs,omitempty"`
}

// TerraformInput names the instance's terraform working directory and the config revision.
type TerraformInput struct {
	Ref      Ref    `json:"ref"`
	OpID     string `json:"opID"`
	Revision string `json:"revision"`
	// ConfigYAML, when set, plans a proposed config instead of the committed one (plan -f).
	ConfigYAML string `json:"configYAML,omitempty"`
	Destroy    bool   `json:"destroy,omitempty"`
	// Rerender, without ConfigYAML, plans the committed instance file at Revision rendered
	// against the stack at Revision (main's head when the plan pinned it), as the config diff renders it.
	// ConfigYAML, too, is rendered against the stack at Revision.
	Rerender bool `json:"rerender,omitempty"`
	// Detail keeps each change's attributes in the plan's summary (bounded, sensitive values masked).
	Detail bool `json:"detail,omitempty"`
	// Budget, when the stack sets one, is when the activity interrupts terraform itself.
	Budget *Budget `json:"budget,omitempty"`
	// To (a plan) renders the config pinned to this release of its stack (plan --to).
	To string `json:"to,omitempty"`
}

// ResourceChange is one resource in a plan.
type ResourceChange struct {
	Address string `json:"address"`
	// Type and Name as terraform's plan JSON has them; empty in summaries made before they were kept.
	Type    string   `json:"type,omitempty"`
	Name    string   `json:"name,omitempty"`
	Actions []string `json:"actions"`
	// Attributes are the attributes the change sets, old -> new (plan only; sensitive values masked).
	Attributes []AttributeChange `json:"attributes,omitempty"`
}

// AttributeChange is one attribute of a planned change, its values as JSON text; a sensitive
// value reads "(sensitive value)" and never leaves the worker.
type AttributeChange struct {
	Path      string `json:"path"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// DataLossResources names the resources a plan deletes or replaces: each may lose the data it holds.
func (s PlanSummary) DataLossResources() []string {
	var out []string
	for _, rc := range s.Resources {
		if slices.Contains(rc.Actions, "delete") {
			out = append(out, rc.Address)
		}
	}
	return out
}

// PlanSummary is a terraform plan: counts and the resources that change.
type PlanSummary struct {
	Add       int              `json:"add"`
	Change    int              `json:"change"`
	Destroy   int              `json:"destroy"`
	NoChanges bool             `json:"noChanges"`
	Resources []ResourceChange `json:"resources,omitempty"`
	// DataLoss names the resources deleted or replaced, flagged whatever the approval policy.
	DataLoss []string `json:"dataLoss,omitempty"`
}

// PlanOutput is a plan saved in the plan store and its summary.
type PlanOutput struct {
	// File is the plan's name, NAME.tfplan (a worker's path in histories before the store).
	File    string      `json:"file"`
	SHA256  string      `json:"sha256"`
	Summary PlanSummary `json:"summary"`
}

// ApplyInput applies exactly the plan file made by TerraformPlan.
type ApplyInput struct {
	Ref  Ref        `json:"ref"`
	Plan PlanOutput `json:"plan"`
	// Budget, when the stack sets one, is when the activity interrupts terraform itself.
	Budget *Budget `json:"budget,omitempty"`
}

// InfraOutput is the infrastructure after an apply or destroy.
type InfraOutput struct {
	AlreadyApplied bool     `json:"alreadyApplied,omitempty"`
	Resources      []string `json:"resources"`
	Serial         int64    `json:"serial"`
	// Outputs are the root module's outputs after an apply, sensitive ones masked and the map
	// bounded (BoundOutputs); nil from workers before outputs were read.
	Outputs map[string]string `json:"outputs,omitempty"`
}

// AppInput names the instance's app at a revision of the GitOps repo.
type AppInput struct {
	Ref      Ref       `json:"ref"`
	Revision string    `json:"revision"`
	Deadline time.Time `json:"deadline"`
	// Recreate deletes and creates the app's objects again instead of applying them (slipway recreate).
	Recreate bool `json:"recreate,omitempty"`
}

// Resource is one deployed object, in EMCO's terms.
type Resource struct {
	App           string `json:"app"`
	Cluster       string `json:"cluster"`
	Group         string `json:"group,omitempty"`
	Version       string `json:"version"`
	Kind          string `json:"kind"`
	Namespace     string `json:"namespace,omitempty"`
	Name          string `json:"name"`
	RsyncStatus   string `json:"rsync-status"`   // Pending | Applied | Failed | Retrying | Terminated
	ClusterStatus string `json:"cluster-status"` // Unknown | NotPresent | Present
	Health        string `json:"health,omitempty"`
	Message       string `json:"message,omitempty"`
}

// AppStatus is what the deployer knows about the instance's app.
type AppStatus struct {
	Deployer  string     `json:"deployer"`
	Deployed  bool       `json:"deployed"` // false: nothing was applied (deployer none, or removed)
	Sync      string     `json:"sync,omitempty"`
	Health    string     `json:"health,omitempty"`
	Message   string     `json:"message,omitempty"`
	Resources []Resource `json:"resources,omitempty"`
	// Observer is the workflow ID of the observer that watches this app's deployer connection
	// ("" for a deployer nobody observes, such as none).
	Observer string `json:"observer,omitempty"`
	// Application is the deployer's name for the app, where it has one.
	Application string `json:"application,omitempty"`
	// Clusters is the app on each cluster when it is placed on several (sorted by cluster);
	// nil for the single-cluster app.
	Clusters []ClusterStatus `json:"clusters,omitempty"`
}

// ClusterStatus is an app placed on several clusters, as one cluster holds it.
type ClusterStatus struct {
	Cluster     string `json:"cluster"`
	Application string `json:"application"`
	// Reachable is false when the deployer or ArgoCD could not reach the cluster: its resources are Retrying.
	Reachable bool   `json:"reachable"`
	Sync      string `json:"sync,omitempty"`
	Health    string `json:"health,omitempty"`
	Message   string `json:"message,omitempty"`
	// Behind is the revision the app there was pointed at while the cluster was down, not yet
	// synced: the observer syncs it once the cluster answers, without a deploy.
	Behind string `json:"behind,omitempty"`
}

// DiffInput asks what the repo would get for ConfigYAML (or a re-render of the committed config).
type DiffInput struct {
	Ref        Ref    `json:"ref"`
	ConfigYAML string `json:"configYAML,omitempty"`
	// Revision is the plan's pinned revision, which its terraform half reads too; "" reads main's head.
	Revision string `json:"revision,omitempty"`
	// To renders the config pinned to this release of its stack (plan --to).
	To string `json:"to,omitempty"`
}

// LeftoverInput asks what a failed operation left behind.
type LeftoverInput struct {
	Ref        Ref                 `json:"ref"`
	Operation  string              `json:"operation"`
	OpID       string              `json:"opID"`
	FailedStep string              `json:"failedStep"`
	MR         *forge.MergeRequest `json:"mr,omitempty"`
	// Revision is the one the pipeline ran at: a worker that never saw the instance
	// prepares its working directory from it to read the state.
	Revision string `json:"revision,omitempty"`
}

// LeftoverLock is the kind of a terraform state lock left held; resolve --force-unlock names its ID.
const LeftoverLock = "terraform-lock"

// Leftover is something a failed step left behind that needs a decision or manual cleanup.
type Leftover struct {
	Kind    string `json:"kind"` // merge-request | branch | terraform-lock | terraform-state | app
	ID      string `json:"id"`
	Detail  string `json:"detail"`
	Cleanup string `json:"cleanup"`
	// Diff is the change a changed-render is (RenderChange.Diff).
	Diff string `json:"diff,omitempty"`
}

// UnlockInput names the stuck terraform state lock an operator chose to force.
type UnlockInput struct {
	Ref    Ref    `json:"ref"`
	LockID string `json:"lockID"`
}

// SecretsInput names the instance and the revision whose stack declares its secrets.
type SecretsInput struct {
	Ref      Ref    `json:"ref"`
	Revision string `json:"revision"`
}

// SecretsOutput names secrets; their values never leave the worker.
type SecretsOutput struct {
	Names   []string `json:"names"`
	Created []string `json:"created,omitempty"`
}

// BranchFor is the MR branch of one operation: the idempotency key of its MR.
func BranchFor(ref Ref, operation, opID string) string {
	return BranchPrefix(ref) + operation + "-" + opID
}

// BranchPrefix starts every MR branch of an instance.
func BranchPrefix(ref Ref) string {
	return "slipway/" + ref.Tenant + "/" + ref.Name + "/"
}
