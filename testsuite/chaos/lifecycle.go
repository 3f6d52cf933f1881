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
	req   func(stack string) contract.OperationRequest
}{
	{"create", lifecycle.OpProvision, func(s string) contract.OperationRequest {
		return contract.OperationRequest{ConfigYAML: chaosConfig(s, 1)}
	}},
	{"deploy", lifecycle.OpDeploy, func(string) contract.OperationRequest { return contract.OperationRequest{} }},
	{"update", lifecycle.OpDeploy, func(s string) contract.OperationRequest {
		return contract.OperationRequest{ConfigYAML: chaosConfig(s, 2)}
	}},
	{"archive", lifecycle.OpArchive, func(string) contract.OperationRequest { return contract.OperationRequest{} }},
	{"deprovision", lifecycle.OpDeprovision, func(string) contract.OperationRequest { return contract.OperationRequest{Confirm: true} }},
}

const (
	stackChaos = "chaos"
	// stackTime is the chaos stack plus the real provider hashicorp/time, which every worker
	// installs from the run's packed mirror into its plugin cache: the init kill points need it.
	stackTime = "chaostime"
	// configChanges is how many operations of the lifecycle change the config: create, update,
	// archive (it records archived: true in git), deprovision.
	configChanges = 4
)

var configV1, configV2 = chaosConfig(stackChaos, 1), chaosConfig(stackChaos, 2)

func chaosConfig(stack string, replicas int) string {
	return fmt.Sprintf("stack: %s\nparameters:\n  greeting: hello\n  replicas: %d\n", stack, replicas)
}

// Outcome is what one lifecycle did.
type Outcome struct {
	Ref       contract.Ref
	Completed bool     // every operation succeeded and the instance is Deprovisioned
	Failed    []string // operations that did not succeed, with why
	Secrets   map[string]string
}

// runLifecycle drives one instance of stack through lifecycleOps and reports how far it got.
// afterOp, when set, runs after each successful operation (e.g. to read secrets).
func runLifecycle(ctx context.Context, c *client.Client, ref contract.Ref, stack string, opTimeout time.Duration,
	afterOp func(i int)) Outcome {
	out := Outcome{Ref: ref}
	for i, o := range lifecycleOps {
		req := o.req(stack)
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
