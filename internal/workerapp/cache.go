package workerapp

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"go.temporal.io/sdk/worker"
)

// The worker's GC headroom follows how fast it allocates. Parked, its heap is mostly cached
// workflows, half of it live, so Go's default 100% headroom would hold only garbage-to-be and
// 10,000 parked instances would pass 200 MiB. Busy, it allocates fast, and at 50% the collector
// ran twice as often and took a quarter of its CPU (docs/performance.md).
const (
	parkedGCPercent = 50
	busyGCPercent   = 100
	// busyAllocRate is the allocation rate, in bytes a second, above which the worker is busy:
	// a parked fleet allocates a few hundred KiB a second, one lifecycle at a time several MiB.
	busyAllocRate = 4 << 20
	gcTuneEvery   = 2 * time.Second
)

var tuneOnce sync.Once

// SizeCache sizes the process's sticky workflow cache (shared by every worker in it, sized before
// the first starts) and, unless GOGC is set, lets the GC headroom follow the allocation rate.
func SizeCache(size int) {
	worker.SetStickyWorkflowCacheSize(size)
	if _, set := os.LookupEnv("GOGC"); !set {
		tuneOnce.Do(func() { go tuneGC(gcTuneEvery) })
	}
}

// tuneGC sets the GC headroom every interval for the allocation rate it saw, for the process's life.
func tuneGC(every time.Duration) {
	t := gcTuner{set: debug.SetGCPercent, release: debug.FreeOSMemory}
	t.set(parkedGCPercent)
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	last, at := sample[0].Value.Uint64(), time.Now()
	for range time.Tick(every) {
		metrics.Read(sample)
		now := time.Now()
		t.observe(float64(sample[0].Value.Uint64()-last) / now.Sub(at).Seconds())
		last, at = sample[0].Value.Uint64(), now
	}
}

// gcTuner switches between the parked and the busy headroom; set and release are the runtime's.
type gcTuner struct {
	busy    bool
	set     func(percent int) int
	release func()
}

// observe takes one interval's allocation rate (bytes a second).
func (t *gcTuner) observe(rate float64) {
	busy := rate > busyAllocRate
	switch {
	case busy && !t.busy:
		t.set(busyGCPercent)
	case !busy && t.busy:
		t.set(parkedGCPercent)
		t.release() // a collection now hands back what the busy headroom held, not at the next one
	}
	t.busy = busy
}
