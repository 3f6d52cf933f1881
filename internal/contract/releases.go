package contract

import (
	"fmt"
	"time"
)

// StackRelease is one cut of a stack: an immutable version of stacks/<stack>/, the commit it was
// cut from and the hash of that directory's files then (config.TreeHash), which every render of
// the release checks. A release of the channel "head" has no commit: it is main's head.
type StackRelease struct {
	Stack   string `json:"stack" yaml:"-"`
	Version string `json:"version" yaml:"version"`
	// Repo is the stacks repository the release was cut from (SLIPWAY_STACKS_REPO, as a file://
	// URL); "" is the GitOps repository, so files cut before it existed seal and render as before.
	Repo   string    `json:"repo,omitempty" yaml:"repo,omitempty"`
	Commit string    `json:"commit,omitempty" yaml:"commit"`
	Tree   string    `json:"tree,omitempty" yaml:"tree"`
	Notes  string    `json:"notes,omitempty" yaml:"notes,omitempty"`
	CutBy  string    `json:"cutBy,omitempty" yaml:"cutBy,omitempty"`
	CutAt  time.Time `json:"cutAt,omitempty" yaml:"cutAt,omitempty"`
}

// Ref is "web@1.5.0", as an instance pins it and InstanceRelease shows it; "" for main's head.
func (r StackRelease) Ref() string {
	if r.Commit == "" {
		return ""
	}
	return r.Stack + "@" + r.Version
}

// StackWorkflowName runs one platform decision about a stack's releases (ID stack/<stack>/<op>-<id>):
// the policy decides it (operation "stack", every tenant), an MR records it, the audit log keeps it.
const StackWorkflowName = "StackWorkflow"

// Stack request operations.
const (
	StackOpRelease  = "release"  // cut a release
	StackOpChannel  = "channel"  // point a channel at a release
	StackOpReleases = "releases" // list the releases and channels (a read)
	StackOpMigrate  = "migrate"  // pin the stack's unpinned instances to a release, changing only their stack: line
	StackOpDeadline = "deadline" // record an upgrade deadline and its planned waves
)

// StackDeadline is an upgrade deadline: every instance of the stack on Min or newer by By, in the
// waves planned inside their change windows when it was set (docs/time.md#upgrade-deadlines).
type StackDeadline struct {
	Min   string         `json:"min" yaml:"min"`
	By    time.Time      `json:"by" yaml:"by"`
	SetBy string         `json:"setBy,omitempty" yaml:"setBy,omitempty"`
	SetAt time.Time      `json:"setAt,omitempty" yaml:"setAt,omitempty"`
	Waves []DeadlineWave `json:"waves,omitempty" yaml:"waves,omitempty"`
}

// DeadlineWaveRollout is the ID of the rollout that runs wave n (from 1) of the deadline merged at merge.
func DeadlineWaveRollout(merge string, n int) string {
	return fmt.Sprintf("%s%.8s-%d", DeadlineWavePrefix, merge, n)
}

// DeadlineWavePrefix begins every deadline wave's rollout ID: slipway's alone, so a person cannot
// start a rollout under a wave's ID (predictable from the merge) before slipway does.
const DeadlineWavePrefix = "deadline-"

// DeadlineWave is one planned wave: instances (TENANT/NAME) of one tenant, from a window opening.
type DeadlineWave struct {
	At        time.Time `json:"at" yaml:"at"`
	Tenant    string    `json:"tenant" yaml:"tenant"`
	Instances []string  `json:"instances" yaml:"instances"`
}

// ActStack is the activity that does a StackRequest.
const ActStack = "Stack"

// StackRequest is what `slipway stack release|channel|releases|migrate` asks for.
type StackRequest struct {
	Op      string `json:"op"`
	Stack   string `json:"stack"`
	Version string `json:"version,omitempty"` // release: the new version; channel, migrate: the release
	From    string `json:"from,omitempty"`    // release: the revision to cut from ("" = main's head)
	Notes   string `json:"notes,omitempty"`
	Channel string `json:"channel,omitempty"`
	// Deadline is the deadline to record (deadline: Min, By and the planned waves).
	Deadline *StackDeadline `json:"deadline,omitempty"`
	// Default makes the channel the one unpinned instances of the stack render.
	Default bool `json:"default,omitempty"`
	// CutBy is the verified actor (set by the workflow, never by the caller).
	CutBy string `json:"cutBy,omitempty"`
	ID    string `json:"id,omitempty"` // the request's ID: names the MR's branch
}

// StackResult is the stack's releases after the request, and the MR that recorded it.
type StackResult struct {
	Stack    string            `json:"stack"`
	Releases []StackRelease    `json:"releases"`
	Channels map[string]string `json:"channels,omitempty"`
	Default  string            `json:"default,omitempty"`
	// Generation counts slipway's writes of the releases file; a read refuses an earlier one restored on main.
	Generation int      `json:"generation,omitempty"`
	MergeSHA   string   `json:"mergeSHA,omitempty"`
	Migrated   []string `json:"migrated,omitempty"` // migrate: the instances pinned
	// Deadlines are the stack's upgrade deadlines, one per minimum release.
	Deadlines []StackDeadline `json:"deadlines,omitempty"`
}
