package workflows

import (
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Rollout phases.
const (
	PhasePlanning  = "Planning" // computing the action list
	PhaseRunning   = "Running"
	PhasePaused    = "Paused"    // an operator paused it, or --pause-after-batch did
	PhaseStopped   = "Stopped"   // failures reached --max-failures; resume retries the failed
	PhaseAborted   = "Aborted"   // an operator ended it; instances keep what they reached
	PhaseCompleted = "Completed" // every batch ran
)

// Rollout instance statuses.
const (
	RolloutPending  = "pending"
	RolloutStarting = "starting" // the deploy is being sent
	RolloutRunning  = "running"
	RolloutUpdated  = "updated"
	RolloutAtTarget = "at-target" // had the desired config already: counts as updated
	RolloutFailed   = "failed"
	RolloutSkipped  = "skipped"
)

// maxBusyTries is how many batches an instance busy with another operation is tried in.
const maxBusyTries = 3

// RolloutInput starts a rollout, or continues one as new with its state.
type RolloutInput struct {
	Spec  contract.RolloutSpec `json:"spec"`
	State *RolloutState        `json:"state,omitempty"`
}

// RolloutState is the rollout's durable record; it is carried across continue-as-new.
type RolloutState struct {
	Spec      contract.RolloutSpec `json:"spec"`
	Phase     string               `json:"phase"`
	Reason    string               `json:"reason,omitempty"`
	Head      string               `json:"head,omitempty"`
	Batch     int                  `json:"batch"` // the batch running or next, 1-based
	Batches   int                  `json:"batches"`
	Failures  int                  `json:"failures"` // failed since the rollout started or last resumed
	Instances []RolloutInstance    `json:"instances"`
	// Ended records each batch's counts as it ended, for the record and the notifications.
	Ended     []BatchRecord `json:"ended,omitempty"`
	StartedAt time.Time     `json:"startedAt"`
	EndedAt   time.Time     `json:"endedAt,omitzero"`
}

// RolloutInstance is one instance's place and progress in the rollout.
type RolloutInstance struct {
	contract.RolloutAction
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Tries  int    `json:"tries,omitempty"`
	Retry  bool   `json:"retry,omitempty"` // resume retries its failed deploy
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

// RolloutStatus is the rollout query's answer: the record plus the StatefulSet-style counts.
type RolloutStatus struct {
	RolloutState
	ID string `json:"id"`
	// InFlight counts deploys sent and not yet ended; a stop or pause settles when it is 0.
	InFlight int `json:"inFlight"`
	Ready    int `json:"ready"`
	Updated  int `json:"updated"`
	Total    int `json:"total"`
}

// counts are ReadyReplicas/UpdatedReplicas/Replicas for the instances the rollout covers.
func (s *RolloutState) counts() (ready, updated, total int) {
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

// AssignBatches numbers the update actions into batches in their order; skips get batch 0.
// It returns the number of batches.
func AssignBatches(spec contract.RolloutSpec, actions []contract.RolloutAction) int {
	n := 0
	for _, a := range actions {
		if a.Action == contract.ActionUpdate {
			n++
		}
	}
	size := batchSize(spec, n)
	i := 0
	for k := range actions {
		if actions[k].Action != contract.ActionUpdate {
			actions[k].Batch = 0
			continue
		}
		actions[k].Batch = i/size + 1
		i++
	}
	if n == 0 {
		return 0
	}
	return (n-1)/size + 1
}

// batchSize is --batch N, or P% of n rounded up, never below one.
func batchSize(spec contract.RolloutSpec, n int) int {
	size := spec.BatchSize
	if spec.BatchPercent > 0 {
		size = (n*spec.BatchPercent + 99) / 100
	}
	return max(size, 1)
}

// maxInFlight is how many of a batch deploy at once.
func (s *RolloutState) maxInFlight() int {
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

func (s *RolloutState) find(ref contract.Ref) *RolloutInstance {
	for i := range s.Instances {
		if s.Instances[i].Ref.Tenant == ref.Tenant && s.Instances[i].Ref.Name == ref.Name {
			return &s.Instances[i]
		}
	}
	return nil
}

// failedRefs names the failed instances, for the stop reason.
func (s *RolloutState) failedRefs() []string {
	var out []string
	for _, in := range s.Instances {
		if in.Status == RolloutFailed {
			out = append(out, in.Ref.String())
		}
	}
	return out
}

// line is the rollout's one-line progress, for current details and the CLI.
func (s *RolloutState) line() string {
	ready, updated, total := s.counts()
	l := fmt.Sprintf("%s: batch %d/%d, ready/updated/total %d/%d/%d", s.Phase, min(s.Batch, s.Batches), s.Batches, ready, updated, total)
	if s.Failures > 0 {
		l += fmt.Sprintf(", %d failed", s.Failures)
	}
	if s.Reason != "" {
		l += "; " + s.Reason
	}
	return l
}
