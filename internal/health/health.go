// Package health serves the liveness (/healthz) and readiness (/readyz) probes of slipway's
// worker and servers.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Timeout bounds one /readyz: a check that has not answered by then fails, so a hung
// dependency reads as not ready instead of hanging the probe.
const Timeout = 2 * time.Second

// Stopping is the check name /readyz reports once SetStopping was called.
const Stopping = "stopping"

// Checker holds the readiness checks of one process.
type Checker struct {
	mu       sync.Mutex
	names    []string
	checks   map[string]func(context.Context) error
	stopping atomic.Bool
}

// New returns a Checker with no checks: ready until one is added or it is stopping.
func New() *Checker { return &Checker{checks: map[string]func(context.Context) error{}} }

// Add registers a readiness check under name; adding a name again replaces its check.
func (c *Checker) Add(name string, check func(context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.checks[name]; !ok {
		c.names = append(c.names, name)
	}
	c.checks[name] = check
}

// SetStopping makes /readyz fail from now on, naming "stopping": a process that began to
// stop takes no new work, so the load balancer and the rollout should stop counting on it.
func (c *Checker) SetStopping() { c.stopping.Store(true) }

// Report is /readyz's body: every check by name, "ok" or its error.
type Report struct {
	Ready   bool              `json:"ready"`
	Failing []string          `json:"failing,omitempty"`
	Checks  map[string]string `json:"checks"`
}

// Check runs every check at once, each bounded by Timeout.
func (c *Checker) Check(ctx context.Context) Report {
	c.mu.Lock()
	names := append([]string(nil), c.names...)
	fns := make([]func(context.Context) error, len(names))
	for i, n := range names {
		fns[i] = c.checks[n]
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	results := make([]error, len(names))
	var wg sync.WaitGroup
	for i, fn := range fns {
		done := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			go func() { done <- fn(ctx) }()
			// A check that ignores its context still cannot hold the probe past the timeout.
			select {
			case results[i] = <-done:
			case <-ctx.Done():
				results[i] = context.Cause(ctx)
			}
		}()
	}
	wg.Wait()
	r := Report{Ready: true, Checks: map[string]string{}}
	for i, n := range names {
		if results[i] != nil {
			r.Checks[n] = results[i].Error()
			r.Failing = append(r.Failing, n)
			continue
		}
		r.Checks[n] = "ok"
	}
	if c.stopping.Load() {
		r.Checks[Stopping] = "the process is stopping"
		r.Failing = append(r.Failing, Stopping)
	}
	sort.Strings(r.Failing)
	r.Ready = len(r.Failing) == 0
	return r
}

// Handler serves /healthz (200 while the process serves) and /readyz (200 when every check
// passes within Timeout, else 503 with the Report naming the failing checks).
func (c *Checker) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		rep := c.Check(r.Context())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !rep.Ready {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(rep)
	})
	return mux
}
