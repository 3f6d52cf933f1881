package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite/drive"
)

// ConflictFigures are the concurrent-requests phase's figures.
type ConflictFigures struct {
	Requests, Accepted, Rejected int
	Unclear                      []string // rejections whose message does not say why
	Order                        []string // operations in the order they ran
	Interleaved                  int      // operations that started before the previous one ended
	Unrecorded                   int      // accepted requests with no operation on record
}

// conflictMix is what the concurrent requests ask for, in turn.
var conflictMix = []struct {
	op  lifecycle.Operation
	cfg string
}{
	{lifecycle.OpDeploy, ""}, {lifecycle.OpPlan, ""}, {lifecycle.OpDeploy, configV2}, {lifecycle.OpArchive, ""},
	{lifecycle.OpPlan, configV1}, {lifecycle.OpDeploy, configV1}, {lifecycle.OpDestroy, ""},
}

// conflicts fires many mixed requests at one instance at once; slipway's policy is that
// a request arriving while an operation runs is rejected with a clear message, never
// queued behind it or interleaved with it.
func (w *world) conflicts(ctx context.Context, rep *Report) error {
	spec := workerSpec{name: "conflicts", taskQueue: "chaos-conflicts", stateDir: filepath.Join(w.dir, "state", "conflicts")}
	p, c, err := w.startLane(spec)
	if err != nil {
		return err
	}
	defer p.Stop()
	ref := contract.Ref{Tenant: "chaos", Name: "conflict"}
	for i := 0; i < 2; i++ { // create, deploy
		o := lifecycleOps[i]
		res, err := drive.SubmitAndWait(ctx, c, ref, o.op, o.req(stackChaos), fmt.Sprintf("conflict-setup-%d", i), w.cfg.OpTimeout)
		if err != nil || res.Result != contract.ResultSucceeded {
			return fmt.Errorf("set up %s: %s %v %+v", ref, o.label, err, res.Failure)
		}
	}
	w.rememberSecrets(ctx, ref)
	before, err := drive.Status(ctx, c, ref)
	if err != nil {
		return err
	}
	f := ConflictFigures{Requests: w.cfg.Conflicts}
	rnd := rand.New(rand.NewSource(w.cfg.Seed))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < w.cfg.Conflicts; i++ {
		m := conflictMix[i%len(conflictMix)]
		delay := time.Duration(rnd.Int63n(int64(3 * time.Second)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			req := contract.OperationRequest{ConfigYAML: m.cfg, Actor: "chaos", Confirm: true}
			h, err := c.Submit(ctx, ref, m.op, req, fmt.Sprintf("conflict-%02d", i))
			if err == nil {
				_, err = h.Get(ctx)
			}
			mu.Lock()
			defer mu.Unlock()
			var rej *client.RejectedError
			switch {
			case err == nil:
				f.Accepted++
			case errors.As(err, &rej):
				f.Rejected++
				if !clearRejection(rej.Message) {
					f.Unclear = append(f.Unclear, rej.Message)
				}
			default:
				f.Unclear = append(f.Unclear, err.Error())
			}
		}()
	}
	wg.Wait()
	after, err := drive.Status(ctx, c, ref)
	if err != nil {
		return err
	}
	ran := newOps(before, after)
	sort.Slice(ran, func(i, j int) bool { return ran[i].StartedAt.Before(ran[j].StartedAt) })
	for i, op := range ran {
		f.Order = append(f.Order, string(op.Kind)+":"+op.Result)
		if i > 0 && op.StartedAt.Before(ran[i-1].EndedAt) {
			f.Interleaved++
		}
	}
	f.Unrecorded = max(0, f.Accepted-len(ran))
	rep.Conflicts = &f
	return nil
}

// clearRejection: the message says the instance is busy or which state forbids what.
func clearRejection(msg string) bool {
	return strings.Contains(msg, "rejected, not queued") || strings.Contains(msg, "allowed") ||
		strings.Contains(msg, "is busy")
}

// newOps are the operations on record in after that were not in before.
func newOps(before, after *contract.Status) []contract.OperationStatus {
	seen := map[string]bool{}
	for _, op := range allOps(before) {
		seen[op.ID] = true
	}
	var out []contract.OperationStatus
	for _, op := range allOps(after) {
		if !seen[op.ID] {
			out = append(out, op)
		}
	}
	return out
}

func allOps(st *contract.Status) []contract.OperationStatus {
	ops := append([]contract.OperationStatus{}, st.History...)
	if st.Operation != nil {
		ops = append(ops, *st.Operation)
	}
	return ops
}
