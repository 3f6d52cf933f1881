package contract

import (
	"fmt"
	"github.com/slipway-dev/slipway/internal/identity"
	"strings"
	"time"
)

// Rollout activities and the signal an instance sends its rollout when an operation ends.
const (
	ActPlanRollout   = "PlanRollout"
	ActRolloutDeploy = "RolloutDeploy"
	// SignalRolloutInstance tells a rollout that one of its instances' operations ended.
	SignalRolloutInstance = "rollout-instance"
)

// RolloutSpec is what a rollout changes (Set and/or StackRev), where, and how fast.
type RolloutSpec struct {
	ID     string    `json:"id"`
	Stack  string    `json:"stack"`
	Tenant string    `json:"tenant,omitempty"`
	Set    []Setting `json:"set,omitempty"`
	// StackRev rolls out the stack as main holds it at this commit (deploys pick it up).
	StackRev string `json:"stackRev,omitempty"`
	// BatchSize or BatchPercent (of the instances to update) sizes each batch.
	BatchSize      int    `json:"batchSize,omitempty"`
	BatchPercent   int    `json:"batchPercent,omitempty"`
	MaxUnavailable int    `json:"maxUnavailable,omitempty"` // deploys in flight at once (0: the batch size)
	Order          string `json:"order,omitempty"`          // name | ordinal
	PauseAfter     bool   `json:"pauseAfterBatch,omitempty"`
	MaxFailures    int    `json:"maxFailures"` // the rollout stops when this many instances failed
	Actor          string `json:"actor,omitempty"`
	// Priority is the task queue priority of the rollout and its deploys (0: PriorityRollout).
	Priority int `json:"priority,omitempty"`
	// To re-pins every instance to this release of the stack (stack: web@To) and deploys it.
	To string `json:"to,omitempty"`
	// Pins re-pins each instance (TENANT/NAME) to its own release: an undo's "the release each ran before".
	Pins map[string]string `json:"pins,omitempty"`
	// Undoes is the rollout an undo reverts.
	Undoes string `json:"undoes,omitempty"`
	// AllowDowngrade lets To (or Pins) be older than an instance's release.
	AllowDowngrade bool `json:"allowDowngrade,omitempty"`
	// Canary is the size of the first wave; the batches follow it.
	Canary int `json:"canary,omitempty"`
	// Watch is how long each wave's instances must stay Ready before the next wave starts (0: no watch).
	Watch time.Duration `json:"watch,omitempty"`
}

// PinShow is a re-pin as the action list shows it, and an undo reads it back: stack=web@1.4.0.
func PinShow(stack, release string) string {
	if release == "" {
		return "stack=" + stack
	}
	return "stack=" + stack + "@" + release
}

// PinnedRelease reads the release back from PinShow ("" for an instance that ran main's head).
func PinnedRelease(show string) string {
	_, rel, _ := strings.Cut(strings.TrimPrefix(show, "stack="), "@")
	return rel
}

// ActWatchWave waits until a wave's instances are Ready, then watches them stay Ready.
const ActWatchWave = "WatchWave"

// WatchWaveInput is one wave's watch.
type WatchWaveInput struct {
	Rollout string        `json:"rollout"`
	Refs    []Ref         `json:"refs"`
	Watch   time.Duration `json:"watch"`
	// ReadyWait bounds the wait for every instance to turn Ready before the watch starts.
	ReadyWait time.Duration `json:"readyWait"`
	Poll      time.Duration `json:"poll"`
}

// WatchWaveOutput says whether the wave stayed healthy, and if not, which instance and why.
type WatchWaveOutput struct {
	Healthy bool   `json:"healthy"`
	Ref     Ref    `json:"ref,omitzero"`
	Reason  string `json:"reason,omitempty"`
}

// Setting is one --set key=value; Value is YAML, so replicas=2 is a number.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Rollout orders.
const (
	OrderName    = "name"
	OrderOrdinal = "ordinal"
)

// Action kinds in a rollout's action list.
const (
	ActionUpdate = "update"
	ActionSkip   = "skip"
)

// RolloutAction is one instance in a rollout's action list, as Datum's instance control lists
// them: what it has, what it will get, and when — or why not.
type RolloutAction struct {
	Ref     Ref    `json:"ref"`
	State   string `json:"state"`
	Ready   string `json:"ready,omitempty"`
	Action  string `json:"action"`
	Current string `json:"current"` // the changed keys as they are ("replicas=1"), or the stack revision
	Desired string `json:"desired"`
	Reason  string `json:"reason,omitempty"` // why skipped, or a note (busy now)
	Batch   int    `json:"batch"`            // 1-based; 0 when skipped
}

// RolloutPlan is the action list, in rollout order.
type RolloutPlan struct {
	Stack   string          `json:"stack"`
	Head    string          `json:"head"` // main when the list was made
	Actions []RolloutAction `json:"actions"`
	// Stateful is the target stack's stateful: list, so plans fingerprint as the preview's do.
	Stateful []string `json:"stateful,omitempty"`
}

// Touches are the instances (TENANT/NAME) the plan deploys: every action but a skip.
func (p RolloutPlan) Touches() []string {
	var out []string
	for _, a := range p.Actions {
		if a.Action != ActionSkip {
			out = append(out, a.Ref.String())
		}
	}
	return out
}

// ListedInstance is an instance as the visibility store lists it.
type ListedInstance struct {
	Ref   Ref    `json:"ref"`
	State string `json:"state"`
	Ready string `json:"ready,omitempty"`
	Gated bool   `json:"gated,omitempty"` // scheduling gates hold its deploys
}

// RolloutDeployInput starts (or, Retry, resumes) one instance's deploy for a rollout.
type RolloutDeployInput struct {
	Rollout   string      `json:"rollout"` // the rollout's workflow ID, told when the operation ends
	Spec      RolloutSpec `json:"spec"`
	Ref       Ref         `json:"ref"`
	RequestID string      `json:"requestID"`
	Retry     bool        `json:"retry,omitempty"`
	// OnBehalfOf is the person who started the rollout: the deploy is theirs, so the policy
	// decides on them and they may not approve it themselves. Nil for rollouts from before.
	OnBehalfOf *identity.Actor `json:"onBehalfOf,omitempty"`
}

// Outcomes of RolloutDeploy.
const (
	DeployStarted  = "started"
	DeployAtTarget = "at-target"
	DeployBusy     = "busy"
	DeployRefused  = "refused"
)

// RolloutDeployOutput says whether the deploy started, and if not, why.
type RolloutDeployOutput struct {
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
	Ready   string `json:"ready,omitempty"` // at-target: the instance's Ready condition
}

// ReasonAtTarget is the skip reason of an instance that already has the desired config.
const ReasonAtTarget = "already at the target"

// RolloutInstanceDone is what an instance tells its rollout when an operation ends.
type RolloutInstanceDone struct {
	Ref     Ref    `json:"ref"`
	OpID    string `json:"opID"`
	Attempt int    `json:"attempt"`
	Result  string `json:"result"`
	State   string `json:"state"`
	Ready   string `json:"ready"`
	Error   string `json:"error,omitempty"`
}

// Rollout updates, named for the CLI commands that send them.
const (
	UpdateRolloutPause  = "pause"
	UpdateRolloutResume = "resume"
	UpdateRolloutAbort  = "abort"
)

// RolloutRequest is the argument of pause, resume and abort.
type RolloutRequest struct {
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// RolloutInput starts a rollout, or continues one as new with its state.
type RolloutInput struct {
	Spec  RolloutSpec   `json:"spec"`
	State *RolloutState `json:"state,omitempty"`
}

// RolloutState is the rollout's durable record; it is carried across continue-as-new.
type RolloutState struct {
	Spec      RolloutSpec       `json:"spec"`
	Phase     string            `json:"phase"`
	Reason    string            `json:"reason,omitempty"`
	Head      string            `json:"head,omitempty"`
	Batch     int               `json:"batch"` // the batch running or next, 1-based
	Batches   int               `json:"batches"`
	Failures  int               `json:"failures"` // failed since the rollout started or last resumed
	Instances []RolloutInstance `json:"instances"`
	// Ended records each batch's counts as it ended, for the record and the notifications.
	Ended     []BatchRecord `json:"ended,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	EndedAt   time.Time     `json:"endedAt,omitzero"`
	// Requester is the verified actor who started the rollout; its deploys are sent on their behalf.
	Requester *identity.Actor `json:"requester,omitempty"`
	// Stateful is the target stack's stateful: list; Groups are the plan shapes that waited for approval.
	Stateful []string       `json:"stateful,omitempty"`
	Groups   []RolloutGroup `json:"groups,omitempty"`
}

// RolloutInstance is one instance's place and progress in the rollout.
type RolloutInstance struct {
	RolloutAction
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Tries  int    `json:"tries,omitempty"`
	Retry  bool   `json:"retry,omitempty"` // resume retries its failed deploy
	// Awaiting is its deploy's wait for approval, with its plan's fingerprint.
	Awaiting *RolloutAwaiting `json:"awaiting,omitempty"`
}

// BatchRecord is ready/updated/total and the failures when a batch ended.
type BatchRecord struct {
	Batch   int       `json:"batch"`
	Ready   int       `json:"ready"`
	Updated int       `json:"updated"`
	Total   int       `json:"total"`
	Failed  int       `json:"failed"`
	At      time.Time `json:"at"`
}

// RolloutStatusFrom is the status query's optional argument. FromBatch > 0 leaves out the
// instances of the batches before it and of those after the next one, which cannot change until
// their batch runs: a follower of a fleet reads what moves, not every instance each time. The
// counts always cover every instance.
type RolloutStatusFrom struct {
	FromBatch int `json:"fromBatch,omitempty"`
}

// RolloutStatus is the rollout query's answer: the record plus the StatefulSet-style counts.
type RolloutStatus struct {
	RolloutState
	ID string `json:"id"`
	// FromBatch is the query's: when > 0, Instances holds only those of that batch up to the one after Batch.
	FromBatch int `json:"fromBatch,omitempty"`
	// InFlight counts deploys sent and not yet ended; a stop or pause settles when it is 0.
	InFlight int `json:"inFlight"`
	Ready    int `json:"ready"`
	Updated  int `json:"updated"`
	Total    int `json:"total"`
}

// counts are ReadyReplicas/UpdatedReplicas/Replicas for the instances the rollout covers.
func (s *RolloutState) Counts() (ready, updated, total int) {
	for _, in := range s.Instances {
		if in.Status == RolloutSkipped {
			continue
		}
		total++
		if in.Status == RolloutUpdated || in.Status == RolloutAtTarget {
			updated++
			if in.Ready == "True" {
				ready++
			}
		}
	}
	return ready, updated, total
}

// maxInFlight is how many of a batch deploy at once.
func (s *RolloutState) MaxInFlight() int {
	if s.Spec.MaxUnavailable > 0 {
		return s.Spec.MaxUnavailable
	}
	n := 0
	for _, in := range s.Instances {
		if in.Batch == s.Batch {
			n++
		}
	}
	return max(n, 1)
}

func (s *RolloutState) Find(ref Ref) *RolloutInstance {
	for i := range s.Instances {
		if s.Instances[i].Ref.Tenant == ref.Tenant && s.Instances[i].Ref.Name == ref.Name {
			return &s.Instances[i]
		}
	}
	return nil
}

// failedRefs names the failed instances, for the stop reason.
func (s *RolloutState) FailedRefs() []string {
	var out []string
	for _, in := range s.Instances {
		if in.Status == RolloutFailed {
			out = append(out, in.Ref.String())
		}
	}
	return out
}

// line is the rollout's one-line progress, for current details and the CLI.
func (s *RolloutState) Line() string {
	ready, updated, total := s.Counts()
	l := fmt.Sprintf("%s: batch %d/%d, ready/updated/total %d/%d/%d", s.Phase, min(s.Batch, s.Batches), s.Batches, ready, updated, total)
	if s.Failures > 0 {
		l += fmt.Sprintf(", %d failed", s.Failures)
	}
	if s.Reason != "" {
		l += "; " + s.Reason
	}
	return l
}

// Rollout phases.
const (
	PhasePlanning  = "Planning" // computing the action list
	PhaseRunning   = "Running"
	PhasePaused    = "Paused"    // an operator paused it, or --pause-after-batch did
	PhaseStopped   = "Stopped"   // failures reached --max-failures; resume retries the failed
	PhaseAborted   = "Aborted"   // an operator ended it; instances keep what they reached
	PhaseCompleted = "Completed" // every batch ran
)

// An instance's status in a rollout.
const (
	RolloutPending  = "pending"
	RolloutStarting = "starting" // the deploy is being sent
	RolloutRunning  = "running"
	RolloutUpdated  = "updated"
	RolloutAtTarget = "at-target" // had the desired config already: counts as updated
	RolloutFailed   = "failed"
	RolloutSkipped  = "skipped"
)
