package workflows

import (
	"github.com/slipway-dev/slipway/internal/contract"
)

// maxBusyTries is how many batches an instance busy with another operation is tried in.
const maxBusyTries = 3

// AssignBatches numbers the update actions into batches in their order; skips get batch 0.
// It returns the number of batches.
func AssignBatches(spec contract.RolloutSpec, actions []contract.RolloutAction) int {
	n := 0
	for _, a := range actions {
		if a.Action == contract.ActionUpdate {
			n++
		}
	}
	// A canary wave comes first (when smaller than the whole); the batches follow it.
	canary := spec.Canary
	if canary >= n {
		canary = 0
	}
	size := batchSize(spec, n-canary)
	i, last := 0, 0
	for k := range actions {
		if actions[k].Action != contract.ActionUpdate {
			actions[k].Batch = 0
			continue
		}
		switch {
		case i < canary:
			actions[k].Batch = 1
		case canary > 0:
			actions[k].Batch = (i-canary)/size + 2
		default:
			actions[k].Batch = i/size + 1
		}
		last = actions[k].Batch
		i++
	}
	return last
}

// batchSize is --batch N, or P% of n rounded up, never below one.
func batchSize(spec contract.RolloutSpec, n int) int {
	size := spec.BatchSize
	if spec.BatchPercent > 0 {
		size = (n*spec.BatchPercent + 99) / 100
	}
	return max(size, 1)
}
