// Command webhookbench floods slipway's webhook server with signed GitHub push deliveries on
// a real Temporal dev server, freezes the server in the middle of the flood, redelivers what
// was answered 5xx, and prints the figures: receipt-to-answer p50/p99 while the worker is
// saturated by the provisions the flood starts, answers by status, lost deliveries, double
// starts and starts from bad signatures.
//
//	go run ./testsuite/webhookbench [-n 1000] [-concurrency 32] [-dup 0.2] [-bad 0.1] [-outage 3s]
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/webhook"
)

func main() {
	var o options
	flag.IntVar(&o.n, "n", 1000, "deliveries")
	flag.IntVar(&o.conc, "concurrency", 32, "deliveries in flight")
	flag.Float64Var(&o.dup, "dup", 0.2, "share of redeliveries")
	flag.Float64Var(&o.bad, "bad", 0.1, "share of bad signatures")
	flag.DurationVar(&o.outage, "outage", 3*time.Second, "how long Temporal is frozen (SIGSTOP) halfway through the flood; 0: no outage")
	flag.StringVar(&o.engine, "temporal", devenv.EngineDev, "Temporal engine: dev (the dev server on SQLite) or postgres (a real cluster on PostgreSQL)")
	flag.IntVar(&o.nodes, "temporal-nodes", 1, "nodes of the postgres engine")
	flag.StringVar(&o.worker, "worker", "process", "process: a slipway-worker process of its own, as in production; inprocess: in the bench's process; none: no worker (the floor: answers only, nothing carried out)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "webhookbench:", err)
		os.Exit(1)
	}
}

type options struct {
	n, conc  int
	dup, bad float64
	outage   time.Duration
	engine   string
	nodes    int
	worker   string
}

type delivery struct {
	id, instance string
	badSig       bool
}

type outcome struct {
	code    int
	elapsed time.Duration
	during  bool // sent while Temporal was frozen
	d       delivery
}

func run(o options) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "slipway-webhookbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env, err := devenv.Start(ctx, devenv.EnvOptions{StateDir: dir, Headless: true, Deployer: "none", TaskQueue: "webhookbench",
		Temporal: o.engine, TemporalNodes: o.nodes, NoWorker: o.worker != "inprocess"})
	if err != nil {
		return err
	}
	defer env.Stop()
	var pids []int
	switch {
	case env.Server != nil:
		pids = []int{env.Server.PID()}
	case env.Cluster != nil:
		for _, n := range env.Cluster.Cluster.Nodes() {
			pids = append(pids, n.Pid())
		}
	default:
		return fmt.Errorf("the bench freezes a Temporal of its own, but reused one at %s", env.Address)
	}
	if o.worker == "process" {
		stop, err := startWorker(dir, env)
		if err != nil {
			return err
		}
		defer stop()
	} else if o.worker != "inprocess" && o.worker != "none" {
		return fmt.Errorf("-worker: %q is not process, inprocess or none", o.worker)
	}
	secret := []byte("bench-secret")
	plan := deliveries(rand.New(rand.NewSource(1)), o.n, o.dup, o.bad)
	rev, err := seedInstances(ctx, env.Activities.Forge, plan)
	if err != nil {
		return err
	}
	srv, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: secret, Repos: []string{benchRepo}}}, RecordTimeout: time.Second, RetryAfter: time.Second}, env.Client)
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	fr := &freezer{pids: pids}
	defer fr.thaw()
	outcomes := make([]outcome, len(plan))
	sem := make(chan struct{}, o.conc)
	var wg sync.WaitGroup
	begin := time.Now()
	for i, d := range plan {
		if i == len(plan)/2 && o.outage > 0 {
			fr.freezeFor(o.outage)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, d delivery) {
			defer wg.Done()
			defer func() { <-sem }()
			outcomes[i] = send(ts.URL, secret, rev, d)
			outcomes[i].during = fr.frozen()
		}(i, d)
	}
	wg.Wait()
	wall := time.Since(begin)
	fr.thaw()
	redelivered, err := redeliver(ts.URL, secret, rev, outcomes)
	if err != nil {
		return err
	}
	return report(ctx, env, plan, outcomes, redelivered, wall, o)
}

// freezer SIGSTOPs the dev server for a while, as the outage does.
type freezer struct {
	mu     sync.Mutex
	pids   []int
	until  time.Time
	active bool
}

func (f *freezer) freezeFor(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pid := range f.pids {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}
	f.active, f.until = true, time.Now().Add(d)
	time.AfterFunc(d, f.thaw)
}

func (f *freezer) thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active {
		for _, pid := range f.pids {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
		f.active = false
	}
}

func (f *freezer) frozen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active
}

// redeliver sends every delivery answered 5xx (or not at all) again, as an operator does
// with the forge's "Redeliver", until each has a final answer; it returns how many it resent.
func redeliver(url string, secret []byte, rev string, out []outcome) (int, error) {
	sent := 0
	for round := 0; round < 30; round++ {
		pending := 0
		for i := range out {
			if out[i].code >= 500 || out[i].code == 0 {
				pending++
				sent++
				during := out[i].during
				out[i] = send(url, secret, rev, out[i].d)
				out[i].during = during
			}
		}
		if pending == 0 {
			return sent, nil
		}
		time.Sleep(time.Second)
	}
	return sent, fmt.Errorf("deliveries still answered 5xx after 30 rounds of redelivery")
}

// deliveries: unique ones, a share repeated (same ID and body), a share badly signed.
func deliveries(rng *rand.Rand, n int, dupShare, badShare float64) []delivery {
	var out []delivery
	for len(out) < n {
		r := rng.Float64()
		switch {
		case r < badShare:
			i := len(out)
			out = append(out, delivery{id: fmt.Sprintf("bad-%d", i), instance: fmt.Sprintf("i-%d", i), badSig: true})
		case r < badShare+dupShare && len(out) > 0:
			prev := out[rng.Intn(len(out))]
			if !prev.badSig {
				out = append(out, prev)
			}
		default:
			i := len(out)
			out = append(out, delivery{id: fmt.Sprintf("d-%d", i), instance: fmt.Sprintf("i-%d", i)})
		}
	}
	return out
}

// benchRepo is the repository the flood's pushes come from, the one its webhook server allows.
const benchRepo = "bench/gitops"

// seedInstances commits an instance file for every instance the flood names.
func seedInstances(ctx context.Context, fg forge.Forge, plan []delivery) (string, error) {
	files := map[string][]byte{}
	for _, d := range plan {
		files[d.instance+"/instance.yaml"] = []byte("stack: example\nparameters:\n  greeting: hello\n")
	}
	mr, err := fg.Open(ctx, forge.Change{Branch: "bench/seed", Title: "seed bench instances", Dir: "instances/bench", Files: files})
	if err != nil {
		return "", err
	}
	mr, err = fg.Merge(ctx, mr)
	return mr.MergeSHA, err
}

func send(url string, secret []byte, rev string, d delivery) outcome {
	body, _ := json.Marshal(map[string]any{
		"ref": "refs/heads/main", "after": rev, "repository": map[string]string{"full_name": benchRepo},
		"commits": []map[string]string{{"id": rev, "message": "[slipway][create] bench/" + d.instance}},
	})
	req, _ := http.NewRequest(http.MethodPost, url+"/github", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", d.id)
	key := secret
	if d.badSig {
		key = []byte("wrong")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	o := outcome{elapsed: time.Since(start), d: d}
	if err != nil {
		return o
	}
	defer resp.Body.Close()
	o.code = resp.StatusCode
	return o
}
