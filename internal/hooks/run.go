package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/slipway-dev/slipway/internal/contract"
)

// DefaultOutputLimit is how much output a Runner keeps when OutputLimit is 0.
const DefaultOutputLimit = 16 << 10

// heartbeatEvery is how often a long call or wait reports that it is alive.
const heartbeatEvery = 5 * time.Second

// Call is one run of a hook for one transition of one instance.
type Call struct {
	Spec      Spec
	Script    []byte // exec: the script's content, read from git by the caller
	URL       string // http: already rendered by the caller (see Render)
	Tenant    string
	Name      string
	Operation string
	Current   contract.HookState
	Next      contract.HookState
	Outputs   map[string]any // terraform outputs, already redacted of sensitive values
	// Parameters are the instance's resolved parameters: an exec hook gets them as
	// SLIPWAY_PARAM_<NAME> variables, so no stack needs to template one into a script.
	Parameters map[string]any
	// Deadline ends all calls and waits; zero means Spec.Deadline from now.
	Deadline time.Time
}

// Runner runs hooks. The zero value runs http hooks and refuses exec hooks (no Sandbox):
// no base environment, real sleeps, no heartbeats.
type Runner struct {
	// Sandbox confines exec hooks; its zero value refuses to run them.
	Sandbox Sandbox
	// HTTP calls http hooks; nil is http.DefaultClient. Every call is bounded by the deadline.
	HTTP *http.Client
	// Env is the base environment of exec hooks, e.g. PATH; nothing else is inherited.
	Env []string
	// Files are written into an exec hook's private scratch dir; each File's Env holds its path.
	Files []File
	// Sleep waits as an answer asks; nil is a timer that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Heartbeat hears what the hook is doing, in a line; nil hears nothing.
	Heartbeat func(detail string)
	// OutputLimit is how many bytes of output are kept, the tail; 0 is DefaultOutputLimit.
	OutputLimit int
}

// File is a credential an exec hook gets as a file of its own (credentials.Value with File set).
type File struct {
	Env, Name string
	Data      []byte
}

// callFunc makes call n of a hook, writing its output to out; it returns the raw answer.
type callFunc func(ctx context.Context, c Call, n int, out *tailBuffer) (string, error)

// Run calls the hook until its answer says it is done (BOSH drain semantics): empty or 0 is
// done, N>0 waits N seconds and is done, N<0 waits -N seconds and calls again. It fails with
// *InvalidSpecError, *FailedError, *AnswerError or *DeadlineError; the output says what was
// done either way.
func (r *Runner) Run(ctx context.Context, c Call) (contract.HookOutput, error) {
	out := contract.HookOutput{Kind: c.Spec.Kind}
	if err := c.Spec.Validate(); err != nil {
		return out, err
	}
	call := callFunc(r.runExec)
	if c.Spec.Kind == KindHTTP {
		if err := checkURL(c); err != nil {
			return out, err
		}
		call = r.runHTTP
	}
	deadline := c.Deadline
	if deadline.IsZero() {
		deadline = time.Now().Add(c.Spec.Deadline)
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	deadline, _ = ctx.Deadline() // the caller's may be sooner
	stopped := func(calls int, a answer, err error) error {
		if errors.Is(err, context.DeadlineExceeded) {
			return &DeadlineError{Hook: c.Spec.Name, Calls: calls, Deadline: deadline, Wait: a.wait, Again: a.again}
		}
		return fmt.Errorf("%s hook: call %d: %w", c.Spec.Name, calls, err)
	}

	total := r.newBuffer()
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return out, stopped(n-1, answer{}, err)
		}
		detail := fmt.Sprintf("%s: call %d", c.Spec.Name, n)
		buf := r.newBuffer()
		var raw string
		err := r.during(detail, func() (err error) {
			raw, err = call(ctx, c, n, buf)
			return err
		})
		out.Calls = n
		total.appendBuffer(buf)
		out.Output = total.String()
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return out, stopped(n, answer{}, ctxErr)
			}
			return out, err
		}
		out.Answers = append(out.Answers, truncate(raw, maxQuoted))
		a, ok := parseAnswer(raw)
		if !ok {
			return out, &AnswerError{Hook: c.Spec.Name, Call: n, Answer: truncate(raw, maxQuoted)}
		}
		if a.wait == 0 {
			return out, nil
		}
		if time.Now().Add(a.wait).After(deadline) {
			return out, &DeadlineError{Hook: c.Spec.Name, Calls: n, Deadline: deadline, Wait: a.wait, Again: a.again}
		}
		if err := r.wait(ctx, c.Spec.Name, n, a, &out.Waited); err != nil {
			return out, stopped(n, a, err)
		}
		if !a.again {
			return out, nil
		}
	}
}

// wait sleeps as an answer asks, in steps of heartbeatEvery so each step can heartbeat.
func (r *Runner) wait(ctx context.Context, hook string, call int, a answer, waited *time.Duration) error {
	kind := "static drain"
	if a.again {
		kind = "dynamic drain"
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for left := a.wait; left > 0; {
		r.beat(fmt.Sprintf("%s: call %d, waiting %s (%s)", hook, call, left, kind))
		d := min(left, heartbeatEvery)
		if err := sleep(ctx, d); err != nil {
			return err
		}
		*waited += d
		left -= d
	}
	return nil
}

// during heartbeats detail before f and every heartbeatEvery while f runs; heartbeats never
// overlap, so Heartbeat needs no locking of its own.
func (r *Runner) during(detail string, f func() error) error {
	if r.Heartbeat == nil {
		return f()
	}
	r.Heartbeat(detail)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.Heartbeat(fmt.Sprintf("%s, running for %s", detail, time.Since(start).Round(time.Second)))
			}
		}
	})
	defer wg.Wait()
	defer close(done)
	return f()
}

func (r *Runner) beat(detail string) {
	if r.Heartbeat != nil {
		r.Heartbeat(detail)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// document is what a hook reads: stdin of an exec hook, the body of an http hook's POST.
type document struct {
	Hook      string             `json:"hook"`
	Operation string             `json:"operation"`
	Tenant    string             `json:"tenant"`
	Name      string             `json:"name"`
	Call      int                `json:"call"`
	Current   contract.HookState `json:"current"`
	Next      contract.HookState `json:"next"`
	Outputs   map[string]any     `json:"outputs"`
}

func documentFor(c Call, n int) ([]byte, error) {
	outputs := c.Outputs
	if outputs == nil {
		outputs = map[string]any{} // {} rather than null: one shape for hooks to read
	}
	return json.Marshal(document{Hook: c.Spec.Name, Operation: c.Operation, Tenant: c.Tenant, Name: c.Name,
		Call: n, Current: c.Current, Next: c.Next, Outputs: outputs})
}

func (r *Runner) newBuffer() *tailBuffer {
	limit := r.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	return &tailBuffer{limit: limit}
}

// tailBuffer keeps the last limit bytes written to it and counts the rest; stdout and
// stderr write to it from two goroutines.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.cut += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// appendBuffer adds what o kept and what it cut: when o cut anything it is full, so the
// result is still one contiguous tail.
func (b *tailBuffer) appendBuffer(o *tailBuffer) {
	o.mu.Lock()
	kept, cut := o.buf, o.cut
	o.mu.Unlock()
	b.Write(kept)
	b.mu.Lock()
	b.cut += cut
	b.mu.Unlock()
}

// String is the kept tail, after a "…(N bytes cut)" note when anything was cut.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut == 0 {
		return string(b.buf)
	}
	i := 0 // start on a rune, so the output stays valid UTF-8
	for i < len(b.buf) && i < utf8.UTFMax && !utf8.RuneStart(b.buf[i]) {
		i++
	}
	return fmt.Sprintf("…(%d bytes cut)", b.cut+int64(i)) + string(b.buf[i:])
}
