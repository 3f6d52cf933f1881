package production

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"
)

// havoc loses hosts while the lifecycles run: a random worker is SIGKILLed every 10-20 s
// and restarted at once (the second one with its state dir deleted, as a replaced host
// would come back), and after the first worker kill one Temporal node is SIGKILLed and
// restarted 20 s later.
type havoc struct {
	mu                      sync.Mutex
	kills, wipes            int
	midApply, midProvider   int // kills that caught a terraform apply/destroy, and the provider, running
	nodeKills, nodeRestarts int
	events                  []string
	errs                    []error
	nodeDone, loopDone      chan struct{}
}

// wait returns once the havoc has stopped and every lost node is back.
func (h *havoc) wait() {
	<-h.loopDone
	<-h.nodeDone
}

const (
	maxWorkerKills = 12
	nodeDownFor    = 20 * time.Second
)

func (w *world) havoc(ctx context.Context, rng *rand.Rand, stop <-chan struct{}) *havoc {
	h := &havoc{nodeDone: make(chan struct{}), loopDone: make(chan struct{})}
	begin := time.Now()
	note := func(format string, args ...any) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.events = append(h.events, fmt.Sprintf("%6.1fs  ", time.Since(begin).Seconds())+fmt.Sprintf(format, args...))
	}
	fail := func(err error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.errs = append(h.errs, err)
	}
	go func() {
		nodeStarted := false
		defer close(h.loopDone)
		defer func() {
			if !nodeStarted {
				close(h.nodeDone)
			}
		}()
		for n := 0; n < maxWorkerKills; {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(10+rng.IntN(11)) * time.Second):
			}
			wk := w.workers[rng.IntN(len(w.workers))]
			applying, provider, err := w.kill(wk)
			if err != nil {
				fail(err)
				continue
			}
			h.mu.Lock()
			h.kills++
			if applying {
				h.midApply++
			}
			if provider {
				h.midProvider++
			}
			n = h.kills
			h.mu.Unlock()
			wiped := ""
			if n == 2 {
				if err := os.RemoveAll(wk.stateDir); err != nil {
					fail(err)
				}
				h.mu.Lock()
				h.wipes++
				h.mu.Unlock()
				wiped = ", state dir deleted (a replaced host)"
			}
			if applying {
				wiped += ", mid-apply"
			}
			if provider {
				wiped += " (provider running)"
			}
			note("SIGKILL %s%s; restarted", wk.name, wiped)
			if err := w.start(wk); err != nil {
				fail(err)
			}
			if n == 1 {
				nodeStarted = true
				go w.loseNode(ctx, h, note, fail)
			}
		}
	}()
	return h
}

// loseNode SIGKILLs the first Temporal node and restarts it after nodeDownFor.
func (w *world) loseNode(ctx context.Context, h *havoc, note func(string, ...any), fail func(error)) {
	defer close(h.nodeDone)
	node := w.temporal.Nodes()[0]
	if err := node.Kill(); err != nil {
		fail(err)
		return
	}
	h.mu.Lock()
	h.nodeKills++
	h.mu.Unlock()
	note("SIGKILL Temporal node %s", node.Address())
	time.Sleep(nodeDownFor)
	if err := node.Restart(ctx); err != nil {
		fail(fmt.Errorf("restart Temporal node: %w", err))
		return
	}
	h.mu.Lock()
	h.nodeRestarts++
	h.mu.Unlock()
	note("Temporal node %s back", node.Address())
}
