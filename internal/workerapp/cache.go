package workerapp

import (
	"os"
	"runtime/debug"

	"go.temporal.io/sdk/worker"
)

// cachedGCPercent is the GC target of a worker whose heap is mostly cached workflows: about half
// its heap is live and long-lived, so the default 100% headroom only holds garbage-to-be.
const cachedGCPercent = 50

// SizeCache sizes the process's sticky workflow cache (shared by every worker in it, sized before
// the first starts) and, unless GOGC is set, lowers the GC headroom to cachedGCPercent: 10,000
// parked instances with 2,000 cached then stay under 200 MiB (docs/performance.md).
func SizeCache(size int) {
	worker.SetStickyWorkflowCacheSize(size)
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(cachedGCPercent)
	}
}
