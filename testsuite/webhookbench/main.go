// Command webhookbench floods slipway's webhook server with signed GitHub push
// deliveries on a real Temporal dev server and prints the figures: accepted,
// refused, started, double starts, starts from bad signatures, and the p50/p99
// from receipt to the instance workflow having accepted its request.
//
//	go run ./testsuite/webhookbench [-n 1000] [-concurrency 32] [-dup 0.2] [-bad 0.1]
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
	"time"

	"github.com/slipway-dev/slipway/internal/devenv"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/webhook"
)

func main() {
	n := flag.Int("n", 1000, "deliveries")
	conc := flag.Int("concurrency", 32, "deliveries in flight")
	dup := flag.Float64("dup", 0.2, "share of redeliveries")
	bad := flag.Float64("bad", 0.1, "share of bad signatures")
	flag.Parse()
	if err := run(*n, *conc, *dup, *bad); err != nil {
		fmt.Fprintln(os.Stderr, "webhookbench:", err)
		os.Exit(1)
	}
}

type delivery struct {
	id, instance string
	badSig       bool
}

type outcome struct {
	code    int
	elapsed time.Duration
	started int
	d       delivery
}

func run(n, conc int, dupShare, badShare float64) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "slipway-webhookbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env, err := devenv.Start(ctx, devenv.EnvOptions{StateDir: dir, Headless: true, Deployer: "none", TaskQueue: "webhookbench"})
	if err != nil {
		return err
	}
	defer env.Stop()
	secret := []byte("bench-secret")
	rng := rand.New(rand.NewSource(1))
	plan := deliveries(rng, n, dupShare, badShare)
	rev, err := seedInstances(ctx, env.Activities.Forge, plan)
	if err != nil {
		return err
	}
	srv, err := webhook.New(webhook.Options{Secret: secret}, webhook.ClientSubmitter(env.Client, time.Minute), env.Activities.Forge)
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	outcomes := make([]outcome, len(plan))
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	begin := time.Now()
	for i, d := range plan {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, d delivery) {
			defer wg.Done()
			defer func() { <-sem }()
			outcomes[i] = send(ts.URL, secret, rev, d)
		}(i, d)
	}
	wg.Wait()
	wall := time.Since(begin)
	return report(ctx, env, plan, outcomes, wall, conc)
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
		"ref": "refs/heads/main", "after": rev,
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
	var r webhook.Response
	_ = json.NewDecoder(resp.Body).Decode(&r)
	o.code, o.started = resp.StatusCode, len(r.Started)
	return o
}
