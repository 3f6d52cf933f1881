package terraform

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"time"
)

// provisionLine and doneLine are terraform's (-no-color) lines when a resource's provisioner
// starts and when the resource's change ends.
var (
	provisionLine = regexp.MustCompile(`^(\S+): Provisioning with '`)
	doneLine      = regexp.MustCompile(`^(\S+): (Creation|Modifications|Destruction) complete`)
)

// provisioners follows terraform's output to know which resources' provisioners are running.
type provisioners struct {
	mu      sync.Mutex
	running map[string]bool
	partial []byte
}

func (p *provisioners) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.partial[:i]
		if m := provisionLine.FindSubmatch(line); m != nil {
			if p.running == nil {
				p.running = map[string]bool{}
			}
			p.running[string(m[1])] = true
		} else if m := doneLine.FindSubmatch(line); m != nil {
			delete(p.running, string(m[1]))
		}
		p.partial = p.partial[i+1:]
	}
}

// now is the set of resources whose provisioners run now.
func (p *provisioners) now() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for r := range p.running {
		out = append(out, r)
	}
	return out
}

// anyRunning says whether one of rs still runs its provisioners.
func (p *provisioners) anyRunning(rs []string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range rs {
		if p.running[r] {
			return true
		}
	}
	return false
}

// holdPoll is how often a held interrupt looks whether the provisioner finished.
const holdPoll = 50 * time.Millisecond

// interruptible is the context terraform runs under: done when ctx is, except that while a
// provisioner runs the interrupt waits for it, up to hold. Terraform's SIGINT kills a running
// provisioner's shell and taints its resource, so the retry would replace it and run the
// provisioner again; a provisioner that finishes within hold leaves its resource complete.
func interruptible(ctx context.Context, p *provisioners, hold time.Duration) (context.Context, context.CancelFunc) {
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-tctx.Done():
			return
		case <-ctx.Done():
		}
		// Only the provisioners running at the stop: one terraform starts later must not extend it.
		held, deadline := p.now(), time.Now().Add(hold)
		for p.anyRunning(held) && time.Now().Before(deadline) {
			select {
			case <-tctx.Done():
				return
			case <-time.After(holdPoll):
			}
		}
		cancel()
	}()
	return tctx, cancel
}
