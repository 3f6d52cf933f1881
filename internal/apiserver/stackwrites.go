package apiserver

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// The bodies of the stack writes; the stack (and channel) is the path's.
type (
	// ReleaseBody is POST /v1/stacks/{stack}/releases: cut a release.
	ReleaseBody struct {
		Version string `json:"version"`
		Notes   string `json:"notes"`
		From    string `json:"from,omitempty"` // the full commit SHA to cut from ("" = main's head)
		ID      string `json:"id,omitempty"`   // names the MR's branch
	}
	// ChannelBody is POST /v1/stacks/{stack}/channels/{channel}: point the channel at a release.
	ChannelBody struct {
		Version string `json:"version"`
		Default bool   `json:"default,omitempty"`
		ID      string `json:"id,omitempty"`
	}
	// DeadlineBody is POST /v1/stacks/{stack}/deadlines: every instance on release Min or newer by
	// By (RFC 3339, or a date: its 00:00 UTC), in waves of BatchSize or BatchPercent (default 25%).
	DeadlineBody struct {
		Min          string `json:"min"`
		By           string `json:"by"`
		BatchSize    int    `json:"batchSize,omitempty"`
		BatchPercent int    `json:"batchPercent,omitempty"`
		ID           string `json:"id,omitempty"`
	}
	// UndoBody is POST /v1/rollouts/{id}/undo: the undoing rollout's ID.
	UndoBody struct {
		ID string `json:"id"`
	}
)

var (
	fullSHA   = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	releaseRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$`)
)

// pathStack is the {stack} of the path.
func pathStack(r *http.Request) (string, error) {
	stack := r.PathValue("stack")
	if !names.IsLabel(stack) {
		return "", badRequest("stack: %q is not a stack name", stack)
	}
	return stack, nil
}

// stackWrite asks the policy (operation "stack" on every tenant, as the StackWorkflow does: only
// platform admins by default), then runs req as the person, whom the workflow records as its actor.
func (s *Server) stackWrite(ctx context.Context, a identity.Actor, req contract.StackRequest) (int, any, error) {
	if req.ID != "" && !names.IsLabel(req.ID) {
		return 0, nil, badRequest("id: %q must be a lowercase label (a-z, 0-9, -)", req.ID)
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: "stack", Name: req.Stack, Request: req}); err != nil {
		return 0, nil, err
	}
	res, err := s.o.Client.StackRequest(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

// stackReleases reads a stack's releases and channels for a person who may read every tenant
// (as the StackWorkflow decides a read: operation read, tenant "*").
func (s *Server) stackReleases(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	if err := s.authorize(ctx, Check{Actor: a, Operation: OpRead, Name: stack}); err != nil {
		return 0, nil, err
	}
	res, err := s.o.Client.StackRequest(ctx, contract.StackRequest{Op: contract.StackOpReleases, Stack: stack})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

func (s *Server) stackRelease(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	var b ReleaseBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	switch {
	case !config.IsVersion(b.Version):
		return 0, nil, badRequest("version: %q must be MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", b.Version)
	case b.Notes == "":
		return 0, nil, badRequest("notes: a release says what changed")
	case b.From != "" && !fullSHA.MatchString(b.From):
		return 0, nil, badRequest("from: %q: a release is cut from a full commit SHA, never a branch or tag that moves", b.From)
	}
	return s.stackWrite(ctx, a, contract.StackRequest{Op: contract.StackOpRelease, Stack: stack, Version: b.Version, Notes: b.Notes, From: b.From, ID: b.ID})
}

func (s *Server) stackChannel(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	channel := r.PathValue("channel")
	if !names.IsLabel(channel) || config.IsVersion(channel) {
		return 0, nil, badRequest("channel: %q must be a lowercase label (a-z, 0-9, -), not a version", channel)
	}
	var b ChannelBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if b.Version != config.ChannelHead && !config.IsVersion(b.Version) {
		return 0, nil, badRequest("version: %q must be a release's version (semver, e.g. 1.5.0) or head", b.Version)
	}
	return s.stackWrite(ctx, a, contract.StackRequest{Op: contract.StackOpChannel, Stack: stack, Channel: channel, Version: b.Version, Default: b.Default, ID: b.ID})
}

// stackDeadline sets an upgrade deadline as stack deadline does, deciding it as the other stack
// writes: its waves are planned inside the server's policy bundle's windows (the workers').
func (s *Server) stackDeadline(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	var b DeadlineBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	by, err := client.ParseBy(b.By, time.Now())
	switch {
	case !config.IsVersion(b.Min):
		return 0, nil, badRequest("min: %q must be a release version MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", b.Min)
	case err != nil:
		return 0, nil, badRequest("by: %v", err)
	case b.BatchSize < 0:
		return 0, nil, badRequest("batchSize: %d: must be at least 1 instance (0: batchPercent, default 25%%)", b.BatchSize)
	case b.BatchPercent < 0 || b.BatchPercent > 100:
		return 0, nil, badRequest("batchPercent: %d: must be 1 to 100", b.BatchPercent)
	case b.BatchSize > 0 && b.BatchPercent > 0:
		return 0, nil, badRequest("batchPercent: give batchSize or batchPercent, not both")
	case b.ID != "" && !names.IsLabel(b.ID):
		return 0, nil, badRequest("id: %q must be a lowercase label (a-z, 0-9, -)", b.ID)
	}
	if b.BatchSize == 0 && b.BatchPercent == 0 {
		b.BatchPercent = 25
	}
	req := contract.StackRequest{Op: contract.StackOpDeadline, Stack: stack, Version: b.Min, ID: b.ID}
	if err := s.authorize(ctx, Check{Actor: a, Operation: "stack", Name: stack, Request: req}); err != nil {
		return 0, nil, err
	}
	set, err := s.o.Client.SetDeadline(ctx, s.o.Windows, stack, contract.StackDeadline{Min: b.Min, By: by}, b.BatchSize, b.BatchPercent, b.ID, a.Name)
	var bad *client.DeadlineInputError
	if errors.As(err, &bad) {
		return 0, nil, badRequest("%s", bad.Error())
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, set, nil
}

// stackPreview starts a fleet preview for a person the policy lets plan in its scope (the
// tenant, or every tenant); each instance's plan is decided again, on them, by its workflow.
func (s *Server) stackPreview(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	var spec contract.PreviewSpec
	if err := decode(r, &spec); err != nil {
		return 0, nil, err
	}
	switch {
	case spec.Requester != nil:
		return 0, nil, componentOnly("requester", "the signed-in person the plans run for")
	case spec.Stack != "" && spec.Stack != stack:
		return 0, nil, badRequest("stack: %q is not the path's stack %q", spec.Stack, stack)
	case !names.IsLabel(spec.ID):
		return 0, nil, badRequest("id: %q must be a lowercase label (a-z, 0-9, -)", spec.ID)
	case !releaseRE.MatchString(spec.To):
		return 0, nil, badRequest("to: %q must name a release, e.g. 1.5.0", spec.To)
	case spec.Tenant != "" && !names.IsLabel(spec.Tenant):
		return 0, nil, badRequest("tenant: %q is not a tenant name", spec.Tenant)
	case spec.Sample < 0 || spec.Sample > contract.MaxPreviewSample:
		return 0, nil, badRequest("sample: must be 0 (all) to %d, got %d", contract.MaxPreviewSample, spec.Sample)
	case spec.Concurrency < 0 || spec.Concurrency > contract.MaxDriftConcurrency:
		return 0, nil, badRequest("concurrency: %d: must be 1 to %d (0: the default)", spec.Concurrency, contract.MaxDriftConcurrency)
	}
	spec.Stack = stack
	if err := s.authorize(ctx, Check{Actor: a, Operation: string(lifecycle.OpPlan), Tenant: spec.Tenant, Stack: stack, Request: spec}); err != nil {
		return 0, nil, err
	}
	if err := s.o.Client.StartPreview(ctx, spec); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, spec, nil
}

// previewShow is a preview's result so far, for a person who may read its scope.
func (s *Server) previewShow(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	stack, err := pathStack(r)
	if err != nil {
		return 0, nil, err
	}
	id := r.PathValue("id")
	missing := &client.RejectedError{Message: "no preview " + id + " of stack " + stack}
	if err := s.decideByID(ctx, Check{Actor: a, Operation: OpRead, Stack: stack}, contract.PreviewWorkflowID(id), "preview "+id, missing); err != nil {
		return 0, nil, err
	}
	res, err := s.o.Client.Preview(ctx, id, false)
	if err != nil {
		return 0, nil, err
	}
	if res.Spec.Stack != stack {
		return 0, nil, missing
	}
	return http.StatusOK, res, nil
}

// rolloutUndo starts the rollout that re-pins what rollout {id} deployed to the releases its
// instances ran before: planned, decided and started as POST /v1/rollouts is.
func (s *Server) rolloutUndo(ctx context.Context, a identity.Actor, r *http.Request) (int, any, error) {
	var b UndoBody
	if err := decode(r, &b); err != nil {
		return 0, nil, err
	}
	if !names.IsLabel(b.ID) {
		return 0, nil, badRequest("id: %q must be a lowercase label (a-z, 0-9, -)", b.ID)
	}
	if strings.HasPrefix(b.ID, contract.DeadlineWavePrefix) {
		return 0, nil, badRequest("id: %q: IDs beginning %q are slipway's deadline waves", b.ID, contract.DeadlineWavePrefix)
	}
	if err := s.decideRollout(ctx, a, r.PathValue("id"), b); err != nil {
		return 0, nil, err
	}
	st, err := s.rolloutStatus(ctx, a, r.PathValue("id"))
	if err != nil {
		return 0, nil, err
	}
	spec, err := client.UndoSpec(st, b.ID, a.Name)
	if err != nil {
		return 0, nil, err
	}
	return s.startRollout(ctx, a, spec)
}
