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
