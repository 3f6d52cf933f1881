package main

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// clock sums the time spent inside one external system, and keeps each call's span for a timeline.
type clock struct {
	ns    atomic.Int64
	mu    sync.Mutex
	spans []span
}

// span is one call into an adapter: the method that timed it, and when.
type span struct {
	call       string
	start, end time.Time
}

func (c *clock) since(start time.Time) {
	end := time.Now()
	c.ns.Add(int64(end.Sub(start)))
	call := "?"
	if pc, _, _, ok := runtime.Caller(1); ok {
		call = strings.TrimPrefix(runtime.FuncForPC(pc).Name(), "main.")
		if i := strings.Index(call, ".deferwrap"); i > 0 {
			call = call[:i]
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, span{call, start, end})
	c.mu.Unlock()
}
func (c *clock) total() time.Duration { return time.Duration(c.ns.Load()) }
func (c *clock) reset() {
	c.ns.Store(0)
	c.mu.Lock()
	c.spans = nil
	c.mu.Unlock()
}

// spansOf returns the spans of every clock.
func spansOf(cs ...*clock) []span {
	var out []span
	for _, c := range cs {
		c.mu.Lock()
		out = append(out, c.spans...)
		c.mu.Unlock()
	}
	return out
}

// timedForge, timedTerraform and timedDeployer time every call into git, terraform and the
// deployer, so the real row can say how much of a deploy is slipway's own.
type timedForge struct {
	forge.Forge
	c *clock
}

func (f timedForge) Head(ctx context.Context) (string, error) {
	defer f.c.since(time.Now())
	return f.Forge.Head(ctx)
}
func (f timedForge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	defer f.c.since(time.Now())
	return f.Forge.ReadDir(ctx, rev, dir)
}
func (f timedForge) Open(ctx context.Context, ch forge.Change) (forge.MergeRequest, error) {
	defer f.c.since(time.Now())
	return f.Forge.Open(ctx, ch)
}
func (f timedForge) Merge(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	defer f.c.since(time.Now())
	return f.Forge.Merge(ctx, mr)
}
func (f timedForge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	defer f.c.since(time.Now())
	return f.Forge.Get(ctx, branch)
}
func (f timedForge) ListOpen(ctx context.Context, prefix string) ([]forge.MergeRequest, error) {
	defer f.c.since(time.Now())
	return f.Forge.ListOpen(ctx, prefix)
}
func (f timedForge) Close(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	defer f.c.since(time.Now())
	return f.Forge.Close(ctx, mr)
}

type timedTerraform struct {
	activities.Terraform
	c *clock
}

func (t timedTerraform) Prepare(ctx context.Context, ws terraform.Workspace, files map[string][]byte) error {
	defer t.c.since(time.Now())
	return t.Terraform.Prepare(ctx, ws, files)
}
func (t timedTerraform) Init(ctx context.Context, ws terraform.Workspace) error {
	defer t.c.since(time.Now())
	return t.Terraform.Init(ctx, ws)
}
func (t timedTerraform) Plan(ctx context.Context, ws terraform.Workspace, name string, destroy bool) (*terraform.Plan, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Plan(ctx, ws, name, destroy)
}
func (t timedTerraform) Apply(ctx context.Context, ws terraform.Workspace, p *terraform.Plan) (bool, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Apply(ctx, ws, p)
}
func (t timedTerraform) Destroy(ctx context.Context, ws terraform.Workspace) error {
	defer t.c.since(time.Now())
	return t.Terraform.Destroy(ctx, ws)
}
func (t timedTerraform) Resources(ctx context.Context, ws terraform.Workspace) ([]terraform.Resource, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Resources(ctx, ws)
}
func (t timedTerraform) State(ctx context.Context, ws terraform.Workspace) (terraform.State, error) {
	defer t.c.since(time.Now())
	return t.Terraform.State(ctx, ws)
}
func (t timedTerraform) Outputs(ctx context.Context, ws terraform.Workspace) (map[string]any, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Outputs(ctx, ws)
}
func (t timedTerraform) PlanJSON(ctx context.Context, ws terraform.Workspace, planName string) (json.RawMessage, error) {
	defer t.c.since(time.Now())
	return t.Terraform.PlanJSON(ctx, ws, planName)
}
func (t timedTerraform) Drift(ctx context.Context, ws terraform.Workspace) (*terraform.DriftReport, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Drift(ctx, ws)
}
func (t timedTerraform) ForceUnlock(ctx context.Context, ws terraform.Workspace, lockID string) error {
	defer t.c.since(time.Now())
	return t.Terraform.ForceUnlock(ctx, ws, lockID)
}
func (t timedTerraform) Lock(ctx context.Context, ws terraform.Workspace) (*terraform.LockInfo, bool, error) {
	defer t.c.since(time.Now())
	return t.Terraform.Lock(ctx, ws)
}

type timedDeployer struct {
	deploy.Deployer
	c *clock
}

func (d timedDeployer) Deploy(ctx context.Context, app deploy.App, deadline time.Time) (contract.AppStatus, error) {
	defer d.c.since(time.Now())
	return d.Deployer.Deploy(ctx, app, deadline)
}
func (d timedDeployer) Status(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	defer d.c.since(time.Now())
	return d.Deployer.Status(ctx, app)
}
func (d timedDeployer) Remove(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	defer d.c.since(time.Now())
	return d.Deployer.Remove(ctx, app)
}
