package testsuite

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// durations times each top-level test of a package from its first use of the dev server to its
// end, so `make test` can print the slowest ones: where the suite's wall time goes.
var durations = struct {
	sync.Mutex
	start, end map[string]time.Time
}{start: map[string]time.Time{}, end: map[string]time.Time{}}

func timeTest(t testing.TB) {
	name, _, _ := strings.Cut(t.Name(), "/")
	now := time.Now()
	durations.Lock()
	defer durations.Unlock()
	if _, ok := durations.start[name]; !ok {
		durations.start[name] = now
		t.Cleanup(func() {
			durations.Lock()
			durations.end[name] = time.Now()
			durations.Unlock()
		})
	}
}

// slowestShown is how many tests the figure lists.
const slowestShown = 25

// writeDurations writes the slowest tests to SLIPWAY_FIGURES_DIR (make test prints it).
func writeDurations() {
	dir := os.Getenv("SLIPWAY_FIGURES_DIR")
	if dir == "" {
		return
	}
	durations.Lock()
	defer durations.Unlock()
	type row struct {
		name string
		d    time.Duration
	}
	var rows []row
	var total time.Duration
	for name, start := range durations.start {
		if end, ok := durations.end[name]; ok {
			rows = append(rows, row{name, end.Sub(start)})
			total += end.Sub(start)
		}
	}
	if len(rows) == 0 {
		return
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(b.d, a.d) })
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	if shard := os.Getenv("SLIPWAY_SHARD"); shard != "" { // scripts/gotest.sh splits a package
		pkg += "-" + shard
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tests on the dev server, %s in all; the slowest:\n", len(rows), total.Round(time.Second))
	for _, r := range rows[:min(len(rows), slowestShown)] {
		fmt.Fprintf(&b, "%8s  %s\n", r.d.Round(100*time.Millisecond), r.name)
	}
	_ = os.WriteFile(filepath.Join(dir, "durations-"+pkg+".txt"), []byte(b.String()), 0o644)
}
