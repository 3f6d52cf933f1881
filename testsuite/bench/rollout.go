package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// rowFailedError is a row that printed FAILED: the bench goes on with the other rows, saves the
// figures and exits 1.
type rowFailedError struct{ row, reason string }

func (e *rowFailedError) Error() string { return e.row + " FAILED: " + e.reason }

const (
	rolloutQueue  = "bench-rollout"
	rolloutTenant = "fleet"
	rolloutStack  = "example"
	// rolloutStall fails the row when the rollout's status stops moving for this long.
	rolloutStall = 3 * time.Minute
)

// rolloutRows provisions and deploys -rollout instances of stack example in tenant fleet
// (web-0…) on a worker process of their own, then times the rollout's plan and the rollout of
// replicas=2 to every one of them in batches of 10%, followed to its end as `slipway rollout
// start --wait` follows it.
func (b *bench) rolloutRows(ctx context.Context) error {
	n := b.o.rollout
	section := fmt.Sprintf("rollout (instant adapters, %d instances)", n)
	w, err := startWorker(b.dir, b.env.Address, b.env.KeyFile, rolloutQueue, b.o.workerSticky)
	if err != nil {
		return err
	}
	defer w.stop()
	if err := waitPoller(ctx, b.env.Client.Temporal, rolloutQueue); err != nil {
		return err
	}
	c := client.New(b.env.Client.Temporal, rolloutQueue, "")
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: rolloutTenant, Name: fmt.Sprintf("web-%d", i)}
	}
	server := b.env.Server.PID()
	fl, err := fleet{clients: []*client.Client{c}, workers: []*workerProc{w}, server: []int{server},
		temporal: b.env.Client.Temporal}.runRefs(ctx, refs)
	if err != nil {
		return fmt.Errorf("provision and deploy the fleet: %w", err)
	}
	spec := contract.RolloutSpec{ID: fmt.Sprintf("bench-%d", n), Stack: rolloutStack, Tenant: rolloutTenant,
		Set: []contract.Setting{{Key: "replicas", Value: "2"}}, BatchPercent: 10, MaxUnavailable: 0,
		Order: contract.OrderOrdinal, MaxFailures: 1, Actor: "bench"}

	// The plan: one activity lists the fleet and compares each instance's config with the target.
	w.resetPeak()
	cpu0, server0 := w.cpu(), procCPU(server)
	t0 := time.Now()
	plan, err := c.PlanRollout(ctx, spec)
	planWall, planCPU, planServer := time.Since(t0), w.cpu()-cpu0, procCPU(server)-server0
	_, planPeak := w.rss()
	fleetNote := fmt.Sprintf("the fleet was provisioned and deployed first, all at once: %.1f s, %.1f/s", fl.wall.Seconds(),
		float64(n)/fl.wall.Seconds())
	if err != nil {
		return b.rolloutFailed(section, "plan", fmt.Sprintf("rollout plan: %v", err), nil, fleetNote)
	}
	updates, batches := 0, 0
	skips := map[string]int{}
	for _, a := range plan.Actions {
		if a.Action == contract.ActionUpdate {
			updates++
		} else {
			skips[a.Reason]++
		}
		batches = max(batches, a.Batch)
	}
	planFigures := map[string]float64{"instances": float64(n), "actions": float64(len(plan.Actions)), "updates": float64(updates),
		"batches": float64(batches), "wallS": planWall.Seconds(), "workerCpuS": planCPU.Seconds(), "workerPeakRssMiB": planPeak,
		"serverCpuS": planServer.Seconds(), "fleetProvisionDeployS": fl.wall.Seconds(), "fleetWorkerPeakRssMiB": fl.workerPeakMiB}
	if len(plan.Actions) != n || updates != n {
		return b.rolloutFailed(section, "plan", fmt.Sprintf("%d actions, %d to update, want %d and %d; skipped: %v",
			len(plan.Actions), updates, n, n, skips), planFigures, fleetNote)
	}
	b.rep.add(row{Section: section, Name: "plan", Figures: planFigures,
		Text: fmt.Sprintf("%d actions in %.1f s (%d to update in %d batches; worker %.1f CPU-s, peak RSS %.0f MiB; server %.1f CPU-s)",
			len(plan.Actions), planWall.Seconds(), updates, batches, planCPU.Seconds(), planPeak, planServer.Seconds()),
		Note: fleetNote})

	// The rollout, from its start to its workflow's close.
	w.resetPeak()
	cpu0, server0 = w.cpu(), procCPU(server)
	start := time.Now()
	if err := c.StartRollout(ctx, spec); err != nil {
		return b.rolloutFailed(section, "run", fmt.Sprintf("rollout start: %v", err), nil, "")
	}
	st, read, followErr := followRollout(ctx, c, spec.ID)
	wall := time.Since(start)
	workerCPU, serverCPU := w.cpu()-cpu0, procCPU(server)-server0
	_, peak := w.rss()
	runs, events, runsErr := rolloutRuns(ctx, b.env.Client.Temporal, spec.ID)
	figures := map[string]float64{"instances": float64(n), "wallS": wall.Seconds(), "perSecond": float64(n) / wall.Seconds(),
		"workerCpuS": workerCPU.Seconds(), "workerPeakRssMiB": peak, "serverCpuS": serverCPU.Seconds(),
		"runs": float64(runs), "continueAsNew": float64(max(runs-1, 0)), "historyEvents": float64(events),
		"followStatusQueries": float64(read.queries), "followInstancesRead": float64(read.instances)}
	batchFigures(figures, st)
	switch {
	case followErr != nil:
		return b.rolloutFailed(section, "run", followErr.Error()+statusLine(st), figures, "")
	case st.Phase != contract.PhaseCompleted || st.Ready != n || st.Updated != n || st.Total != n:
		return b.rolloutFailed(section, "run", fmt.Sprintf("ended with ready/updated/total %d/%d/%d, want %d/%d/%d",
			st.Ready, st.Updated, st.Total, n, n, n)+statusLine(st), figures, "")
	case runsErr != nil:
		return runsErr
	}
	b.rep.add(row{Section: section, Name: "run", Figures: figures,
		Text: fmt.Sprintf("%d batches in %.1f s (%.1f instances/s, %.1f s/batch); worker %.1f CPU-s, peak RSS %.0f MiB; server %.1f CPU-s; %s (%d continue-as-new)",
			st.Batches, wall.Seconds(), float64(n)/wall.Seconds(), figures["sPerBatch"], workerCPU.Seconds(), peak,
			serverCPU.Seconds(), plural(runs, "run"), runs-1),
		Note: fmt.Sprintf("ready/updated/total %d/%d/%d; %d history events over the runs; worker CPU includes the %d status queries of the follower (%d instance records read)",
			st.Ready, st.Updated, st.Total, events, read.queries, read.instances)})
	return nil
}

// followed is what a follower read: its status queries and the instance records they carried.
type followed struct{ queries, instances int }

// followRollout follows the rollout to its workflow's close with the client's FollowRollout,
// counting the status queries it makes and the instances they carry; it gives up once the
// status stops moving for rolloutStall. It returns the last status it saw.
func followRollout(ctx context.Context, c *client.Client, id string) (*contract.RolloutStatus, followed, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	var last *contract.RolloutStatus
	var key string
	var f followed
	moved := time.Now()
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				mu.Lock()
				still := time.Since(moved)
				mu.Unlock()
				if still > rolloutStall {
					cancel(fmt.Errorf("the rollout's status did not move for %s", rolloutStall))
					return
				}
			}
		}
	}()
	st, err := c.FollowRollout(ctx, id, func(s *contract.RolloutStatus) bool {
		mu.Lock()
		defer mu.Unlock()
		f.queries++
		f.instances += len(s.Instances)
		last = s
		if k := fmt.Sprint(s.Phase, s.Batch, s.InFlight, s.Updated, s.Ready, s.Failures); k != key {
			key, moved = k, time.Now()
		}
		return false
	})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			err = cause
		}
		if final, qerr := c.RolloutStatus(context.WithoutCancel(ctx), id); qerr == nil {
			last = final
		}
		return last, f, err
	}
	return st, f, nil
}

// batchFigures adds a rollout's batch counts and times to a row's figures.
func batchFigures(figures map[string]float64, st *contract.RolloutStatus) {
	if st == nil {
		return
	}
	figures["batches"], figures["ready"], figures["updated"], figures["total"] = float64(st.Batches), float64(st.Ready),
		float64(st.Updated), float64(st.Total)
	if mean, slowest, ok := batchTimes(st); ok {
		figures["sPerBatch"], figures["slowestBatchS"] = mean.Seconds(), slowest.Seconds()
	}
}

// batchTimes are the mean and the longest batch, from the rollout's start and its batch records.
func batchTimes(st *contract.RolloutStatus) (mean, slowest time.Duration, ok bool) {
	if len(st.Ended) == 0 || st.StartedAt.IsZero() {
		return 0, 0, false
	}
	prev := st.StartedAt
	for _, e := range st.Ended {
		slowest = max(slowest, e.At.Sub(prev))
		prev = e.At
	}
	return prev.Sub(st.StartedAt) / time.Duration(len(st.Ended)), slowest, true
}

// rolloutRuns counts the runs of rollout/<id> (the first and each continue-as-new) and their
// history events, waiting for visibility to show the last one closed.
func rolloutRuns(ctx context.Context, c sdkclient.Client, id string) (runs int, events int64, err error) {
	return workflowRuns(ctx, c, fmt.Sprintf("WorkflowId = '%s'", contract.RolloutWorkflowID(id)))
}

// workflowRuns counts the runs visibility lists for query and their history events, waiting
// for it to show the last one closed.
func workflowRuns(ctx context.Context, c sdkclient.Client, query string) (runs int, events int64, err error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		runs, events = 0, 0
		open := 0
		var token []byte
		for {
			resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
			if err != nil {
				return 0, 0, fmt.Errorf("list the runs of %s: %w", query, err)
			}
			for _, ex := range resp.GetExecutions() {
				runs++
				events += ex.GetHistoryLength()
				if ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
					open++
				}
			}
			if token = resp.GetNextPageToken(); len(token) == 0 {
				break
			}
		}
		if open == 0 || time.Now().After(deadline) {
			return runs, events, nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// statusLine is the status a failed rollout row reports: phase, reason, batch and in flight,
// and the first failed instances.
func statusLine(st *contract.RolloutStatus) string {
	if st == nil {
		return "; no status"
	}
	s := fmt.Sprintf("; phase %s, batch %d/%d, in flight %d, ready/updated/total %d/%d/%d, %d failed",
		st.Phase, st.Batch, st.Batches, st.InFlight, st.Ready, st.Updated, st.Total, st.Failures)
	if st.Reason != "" {
		s += "; " + st.Reason
	}
	var bad []string
	for _, in := range st.Instances {
		if in.Status != contract.RolloutUpdated && in.Status != contract.RolloutAtTarget && len(bad) < 5 {
			bad = append(bad, fmt.Sprintf("%s %s %s", in.Ref, in.Status, strings.TrimSpace(in.Reason+" "+in.Error)))
		}
	}
	if len(bad) > 0 {
		s += "; e.g. " + strings.Join(bad, "; ")
	}
	return s
}

// rolloutFailed prints the row as FAILED with its reason, keeps the rollout's status and the
// worker's log next to the figures for whoever looks into it, and returns a rowFailedError.
func (b *bench) rolloutFailed(section, name, reason string, figures map[string]float64, note string) error {
	return b.rolloutFailedOf(section, name, reason, figures, note, fmt.Sprintf("bench-%d", b.o.rollout), rolloutQueue)
}

// rolloutFailedOf is rolloutFailed for rollout id on the worker of queue.
func (b *bench) rolloutFailedOf(section, name, reason string, figures map[string]float64, note, id, queue string) error {
	if figures == nil {
		figures = map[string]float64{}
	}
	figures["failed"] = 1
	if kept := b.keepRolloutEvidence(id, queue); kept != "" {
		note = strings.TrimPrefix(note+"; "+kept, "; ")
	}
	b.rep.add(row{Section: section, Name: name, Figures: figures, Text: "FAILED: " + reason, Note: note})
	return &rowFailedError{row: name, reason: reason}
}

// keepRolloutEvidence copies the rollout's status (JSON) and the worker's log into -out, as the
// bench's temporary directory goes when it ends.
func (b *bench) keepRolloutEvidence(id, queue string) string {
	if err := os.MkdirAll(b.o.out, 0o755); err != nil {
		return ""
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	var kept []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(b.env.Client.Temporal, queue, "")
	if st, err := c.RolloutStatus(ctx, id); err == nil {
		if data, err := json.MarshalIndent(st, "", "  "); err == nil {
			p := filepath.Join(b.o.out, "rollout-status-"+stamp+".json")
			if os.WriteFile(p, append(data, '\n'), 0o644) == nil {
				kept = append(kept, p)
			}
		}
	} else {
		var nf *client.RolloutNotFoundError
		if !errors.As(err, &nf) {
			kept = append(kept, "status query failed: "+err.Error())
		}
	}
	if data, err := os.ReadFile(filepath.Join(b.dir, "worker-"+queue+".log")); err == nil {
		p := filepath.Join(b.o.out, "rollout-worker-"+stamp+".log")
		if os.WriteFile(p, data, 0o644) == nil {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return "kept: " + strings.Join(kept, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
