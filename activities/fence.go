package activities

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Runs answers from Temporal whether the workflow run a step serves may act; set from the
// worker's client. The server, not the request, names that run (activity.GetInfo).
type Runs interface {
	// CurrentPipeline is the fencing token of the instance (by workflow ID): its current operation's pipeline run.
	CurrentPipeline(ctx context.Context, instanceID string) (contract.PipelineRun, error)
	// CheckScheduled refuses a run that claims a Temporal Schedule started it (search attribute
	// TemporalScheduledById) unless that schedule exists and lists the run as one it started.
	CheckScheduled(ctx context.Context, workflowID, runID, workflowType string) error
}

// fence refuses, never retried, a state-changing step unless the pipeline run it serves is its
// instance's current operation: a copied start of a finished pipeline, a Reset of one or a stale
// attempt changes nothing. The instance's own steps pass: it is the authority. Without Runs
// (activity unit tests) nothing is checked; every worker has them (workerapp.Attach).
func (a *Activities) fence(ctx context.Context) error {
	if a.Runs == nil || !activity.IsActivity(ctx) {
		return nil
	}
	info := activity.GetInfo(ctx)
	wf := info.WorkflowExecution
	parts := strings.Split(wf.ID, "/")
	if info.WorkflowType.Name == contract.InstanceWorkflowName && len(parts) == 3 && parts[0] == "instance" {
		return nil
	}
	if len(parts) != 5 || parts[0] != "instance" {
		return notCurrent(wf.ID, "it is no instance's pipeline")
	}
	if admitted.has(wf.RunID) {
		return nil
	}
	cur, err := a.Runs.CurrentPipeline(ctx, strings.Join(parts[:3], "/"))
	if err != nil {
		return classify(err)
	}
	switch {
	case cur.Admits(wf.ID, wf.RunID):
		admitted.add(wf.RunID)
		return nil
	case !cur.Running:
		return notCurrent(wf.ID, "the instance runs no operation")
	case cur.Workflow == wf.ID:
		return notCurrent(wf.ID, "it is another run of the current pipeline")
	}
	return notCurrent(wf.ID, "the instance runs "+cur.Workflow)
}

// admitted remembers, for a while, the pipeline runs the fence let through: a run ID is never
// reused, and a run stays its instance's current operation until it ends (the instance waits
// for it), so only its first fenced step asks the instance. A copied start or a Reset is a new
// run, which asks.
var admitted = &runCache{ttl: 10 * time.Minute, runs: map[string]time.Time{}}

type runCache struct {
	ttl  time.Duration
	mu   sync.Mutex
	runs map[string]time.Time
}

func (c *runCache) has(run string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.runs[run]
	return ok && time.Since(at) < c.ttl
}

func (c *runCache) add(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if len(c.runs) >= 4096 {
		for r, at := range c.runs {
			if now.Sub(at) >= c.ttl {
				delete(c.runs, r)
			}
		}
	}
	c.runs[run] = now
}

func notCurrent(id, why string) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("pipeline %s is not the current operation: %s; nothing was changed", id, why),
		contract.ErrNotCurrent, nil)
}

// scheduled refuses, never retried, the steps of a sweep whose start skipped attestation by
// claiming a Temporal Schedule started it, unless that schedule did: a caller can set the
// search attribute, not the schedule's record of what it started.
func (a *Activities) scheduled(ctx context.Context) error {
	if a.Runs == nil || !activity.IsActivity(ctx) {
		return nil
	}
	info := activity.GetInfo(ctx)
	if err := a.Runs.CheckScheduled(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.WorkflowType.Name); err != nil {
		return classify(err)
	}
	return nil
}
