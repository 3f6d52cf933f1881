package workerapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The headroom is Go's default only while the worker allocates fast, and a return to parked
// hands the busy headroom back at once.
func TestGCHeadroomFollowsTheAllocationRate(t *testing.T) {
	var set []int
	released := 0
	tu := gcTuner{set: func(p int) int { set = append(set, p); return 0 }, release: func() { released++ }}
	for _, rate := range []float64{200 << 10, busyAllocRate * 3, busyAllocRate * 2, 100 << 10, 0, busyAllocRate + 1} {
		tu.observe(rate)
	}
	assert.Equal(t, []int{busyGCPercent, parkedGCPercent, busyGCPercent}, set, "one change per crossing, none while the rate stays on one side")
	assert.Equal(t, 1, released, "memory is handed back once, on the way to parked")
}
