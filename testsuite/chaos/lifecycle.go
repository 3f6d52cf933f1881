package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

const (
	opCreate = iota + 1
	opDeploy
	opUpdate
	opArchive
	opDeprovision
)

// lifecycleOps is the lifecycle every chaos instance goes through, in order.
var lifecycleOps = []struct {
	label string
	op    lifecycle.Operation
	req   func() workflows.OperationRequest
}{
	{"create", lifecycle.OpProvision, func() workflows.OperationRequest { return workflows.OperationRequest{ConfigYAML: configV1} }},
	{"deploy", lifecycle.OpDeploy, func() workflows.OperationRequest { return workflows.OperationRequest{} }},
	{"update", lifecycle.OpDeploy, func() workflows.OperationRequest { return workflows.OperationRequest{ConfigYAML: configV2} }},
	{"archive", lifecycle.OpArchive, func() workflows.OperationRequest { return workflows.OperationRequest{} }},
	{"deprovision", lifecycle.OpDeprovision, func() workflows.OperationRequest { return workflows.OperationRequest{Confirm: true} }},
}

const (
	configV1 = "stack: chaos\nparameters:\n  greeting: hello\n  replicas: 1\n"
	configV2 = "stack: chaos\nparameters:\n  greeting: hello\n  replicas: 2\n"
	// configChanges is how many operations of the lifecycle change the config: create, update, deprovision.
	configChanges = 3
)

// Outcome is what one lifecycle did.
type Outcome struct {
	Ref       steps.Ref
	Completed bool     // every operation succeeded and the instance is Deprovisioned
	Failed    []string // operations that did not succeed, with why
	Secrets   map[string]string
}

// runLifecycle drives one instance through lifecycleOps and reports how far it got.
// afterOp, when set, runs after each successful operation (e.g. to read secrets).
func runLifecycle(ctx context.Context, c *client.Client, ref steps.Ref, opTimeout time.Duration,
	afterOp func(i int)) Outcome {
	out := Outcome{Ref: ref}
	for i, o := range lifecycleOps {
		req := o.req()
		req.Actor = "chaos"
		res, err := submitAndWait(ctx, c, ref, o.op, req, fmt.Sprintf("chaos-%s-%d", ref, i+1), opTimeout)
		if err != nil {
			out.Failed = append(out.Failed, fmt.Sprintf("%s: %v", o.label, err))
			return out
		}
		if res.Result != workflows.ResultSucceeded {
			why := res.Result
			if res.Failure != nil {
				why += ": " + res.Failure.Step + ": " + res.Failure.Error
			}
			out.Failed = append(out.Failed, fmt.Sprintf("%s: %s", o.label, why))
			return out
		}
		if afterOp != nil {
			afterOp(i + 1)
		}
	}
	out.Completed = true
	return out
}

// submitAndWait sends one request and waits for its result, riding out worker and
// server restarts: the request ID makes a resent request the same request.
func submitAndWait(ctx context.Context, c *client.Client, ref steps.Ref, op lifecycle.Operation,
	req workflows.OperationRequest, requestID string, timeout time.Duration) (workflows.OperationResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		h, err := c.Submit(ctx, ref, op, req, requestID)
		if err == nil {
			var res workflows.OperationResult
			if res, err = h.Get(ctx); err == nil {
				return res, nil
			}
		}
		if !transient(err) || ctx.Err() != nil {
			return workflows.OperationResult{}, err
		}
		select {
		case <-ctx.Done():
			return workflows.OperationResult{}, err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// transient errors are the server or the connection being away, not an answer.
func transient(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var cu *client.UnavailableError
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &cu) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "Unavailable") ||
		strings.Contains(msg, "transport is closing")
}

// statusOf reads the instance's full status, retrying while the server is away.
func statusOf(ctx context.Context, c *client.Client, ref steps.Ref) (*workflows.Status, error) {
	var last error
	for i := 0; i < 60; i++ {
		st, err := c.Status(ctx, ref, workflows.StatusRequest{Output: "all"})
		if err == nil {
			return st, nil
		}
		last = err
		if !transient(err) {
			return nil, err
		}
		time.Sleep(500 * time.Millisecond)
	}
	return nil, last
}
