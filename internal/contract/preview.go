package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

// Stack preview: the workflow, its activities and query.
const (
	ActListPreview = "ListPreview"
	// ActListPreviewPage lists one page of a preview's scope (PreviewPageInput), so no run carries the whole fleet.
	ActListPreviewPage = "ListPreviewPage"
	ActPreviewInstance = "PreviewInstance"
	// QueryPreview answers a running or finished preview's progress and groups.
	QueryPreview = "preview"
)

// PreviewWorkflowID is the workflow of a stack preview.
func PreviewWorkflowID(id string) string { return "stack-preview/" + id }

// PreviewSpec is what a fleet preview plans: every instance of Stack (in Tenant) moved to release To.
type PreviewSpec struct {
	ID     string `json:"id"`
	Stack  string `json:"stack"`
	To     string `json:"to"` // the release, "1.5.0"
	Tenant string `json:"tenant,omitempty"`
	// Sample plans only this many instances (0: all), spread over the scope's tenants.
	Sample int `json:"sample,omitempty"`
	// Concurrency bounds the plans at once (0: the default; at most MaxDriftConcurrency).
	Concurrency int    `json:"concurrency,omitempty"`
	Actor       string `json:"actor,omitempty"`
	// Requester is the person the plans run for (who started the preview). Only slipway sets it.
	Requester *identity.Actor `json:"requester,omitempty"`
	// Carry is the progress a preview's run hands the next when it continues as new. Only slipway sets it.
	Carry *PreviewCarry `json:"carry,omitempty"`
}

// PreviewCarry is what a preview carries into its next run: its record so far (the groups, not
// every planned instance), the instances still to plan and, once it lists a page a run, the
// visibility store's token for the next page.
type PreviewCarry struct {
	Result  PreviewResult `json:"result"`
	Pending []Ref         `json:"pending"`
	Paged   bool          `json:"paged,omitempty"`
	Page    []byte        `json:"page,omitempty"`
}

// MaxPreviewSample bounds --sample: a sample's instances are listed at once and carried from run to run.
const MaxPreviewSample = 10000

// MaxPreviewNamed bounds the instances not planned that a preview's record names; the rest are counted.
const MaxPreviewNamed = 500

// PreviewPageInput asks for the next instances of a preview's scope: one page of Size from the
// visibility store (Page nil: the first), or, for a sample, the whole sample at once.
type PreviewPageInput struct {
	Spec PreviewSpec `json:"spec"`
	Size int         `json:"size"`
	Page []byte      `json:"page,omitempty"`
}

// PreviewPage is the instances to plan next, the ones skipped (at most MaxPreviewNamed named,
// SkippedMore counted) and the token of the next page (nil after the last).
type PreviewPage struct {
	Pending     []Ref             `json:"pending,omitempty"`
	Skipped     []PreviewInstance `json:"skipped,omitempty"`
	SkippedMore int               `json:"skippedMore,omitempty"`
	Next        []byte            `json:"next,omitempty"`
}

// PlanEntry is one resource change of a plan's fingerprint: its address without instance keys,
// the action, and the names of the top-level attributes it changes.
type PlanEntry struct {
	Resource   string   `json:"resource"`
	Action     string   `json:"action"` // create | update | replace | delete | forget
	Attributes []string `json:"attributes,omitempty"`
	// Stateful marks a resource the stack declares stateful: that the plan deletes or replaces.
	Stateful bool `json:"stateful,omitempty"`
}

// PlanFingerprint is a plan's shape: the same for every instance whose plan does the same kind
// of thing to the same resources, whatever the values.
type PlanFingerprint struct {
	Hash    string      `json:"hash"`    // 12 hex digits of the sorted entries' SHA-256
	Summary string      `json:"summary"` // one line: "update aws_db_parameter_group.main (2 attributes); replace aws_db_instance.main"
	Entries []PlanEntry `json:"entries,omitempty"`
	// Stateful lists the stateful resources it deletes or replaces: a rollback cannot bring back their data.
	Stateful []string `json:"stateful,omitempty"`
}

// Outcomes of one instance in a preview.
const (
	PreviewPlanned = "planned"
	PreviewBusy    = "busy"
	PreviewSkipped = "skipped" // not deployed, failed, archived, at the release already, or not in the sample
	PreviewFailed  = "failed"  // the plan ran and failed, or was refused
)

// PreviewInstanceInput plans one instance's move to the release.
type PreviewInstanceInput struct {
	Spec    PreviewSpec `json:"spec"`
	Ref     Ref         `json:"ref"`
	Preview string      `json:"preview"` // the preview's workflow ID: the request ID's base
}

// PreviewInstance is one instance's preview: its release now, and the plan and manifest diff of the new one.
type PreviewInstance struct {
	Ref         Ref              `json:"ref"`
	From        string           `json:"from,omitempty"` // the release it runs ("" for main's head)
	Outcome     string           `json:"outcome"`
	Message     string           `json:"message,omitempty"`
	Fingerprint *PlanFingerprint `json:"fingerprint,omitempty"`
	// Plan is the plan's summary without attribute values (the fingerprint names the attributes).
	Plan *PlanSummary `json:"plan,omitempty"`
	// Diff is the rendered files' diff, bounded; a finished preview keeps it for each group's first instance.
	Diff string `json:"diff,omitempty"`
}

// PreviewGroup is the instances whose plans share one fingerprint: how many, and a sample of them.
type PreviewGroup struct {
	PlanFingerprint
	Count int `json:"count"`
	// Instances are the group's first PreviewSample instances by name: a fleet's groups stay bounded.
	Instances []Ref `json:"instances"`
}

// PreviewSample bounds the instances a preview group names.
const PreviewSample = 20

// MaxPreviewGroups bounds a preview's groups, each with its first instance's plan and diff: a
// fleet whose every instance plans differently keeps a record of this many shapes, not one a
// plan. The planned instances of later shapes are counted in Ungrouped.
const MaxPreviewGroups = 100

// PreviewResult is a preview's record: the planned instances grouped by fingerprint, the largest
// group first, and the outcome of each instance not planned plus each group's first planned one
// (with its plan and diff). It is the workflow's result, kept as long as its history.
type PreviewResult struct {
	Spec    PreviewSpec    `json:"spec"`
	Done    bool           `json:"done"`
	Planned int            `json:"planned"`
	Total   int            `json:"total"`
	Groups  []PreviewGroup `json:"groups"`
	// Ungrouped counts the planned instances whose shape came after the first MaxPreviewGroups.
	Ungrouped int               `json:"ungrouped,omitempty"`
	Instances []PreviewInstance `json:"instances"`
	// NotPlanned counts the instances not planned by outcome (busy, failed, skipped): Instances
	// names at most MaxPreviewNamed of them, so a fleet's record stays bounded.
	NotPlanned map[string]int `json:"notPlanned,omitempty"`
	// Listing: more of the scope is still to be listed, so Total is what is listed so far.
	Listing   bool      `json:"listing,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
}
