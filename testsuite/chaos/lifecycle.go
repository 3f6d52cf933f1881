package main

import (
	"context"
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite/drive"
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
	req   func() contract.OperationRequest
}{
	{"create", lifecycle.OpProvision, func() contract.OperationRequest { return contract.OperationRequest{ConfigYAML: configV1} }},
	{"deploy", lifecycle.OpDeploy, func() contract.OperationRequest { return contract.OperationRequest{} }},
	{"update", lifecycle.OpDeploy, func() contract.OperationRequest { return contract.OperationRequest{ConfigYAML: configV2} }},
	{"archive", lifecycle.OpArchive, func() contract.OperationRequest { return contract.OperationRequest{} }},
	{"deprovision", lifecycle.OpDeprovision, func() contract.OperationRequest { return contract.OperationRequest{Confirm: true} }},
}

const (
	configV1 = "stack: chaos\nparameters:\n  greeting: hello\n  replicas: 1\n"
	configV2 = "stack: chaos\nparameters:\n  greeting: hello\n  replicas: 2\n"
	// configChanges is how many operations of the lifecycle change the config: create, update, deprovision.
	configChanges = 3
)

// Outcome is what one lifecycle did.
type Outcome struct {
	Ref       contract.Ref
	Completed bool     // every operation succeeded and the instance is Deprovisioned
	Failed    []string // operations that did not succeed, with why
	Secrets   map[string]string
}

// runLifecycle drives one instance through lifecycleOps and reports how far it got.
// afterOp, when set, runs after each successful operation (e.g. to read secrets).
func runLifecycle(ctx context.Context, c *client.Client, ref contract.Ref, opTimeout time.Duration,
	afterOp func(i int)) Outcome {
	out := Outcome{Ref: ref}
	for i, o := range lifecycleOps {
		req := o.req()
		req.Actor = "chaos"
		res, err := drive.SubmitAndWait(ctx, c, ref, o.op, req, fmt.Sprintf("chaos-%s-%d", ref, i+1), opTimeout)
		if err != nil {
			out.Failed = append(out.Failed, fmt.Sprintf("%s: %v", o.label, err))
			return out
		}
		if res.Result != contract.ResultSucceeded {
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
