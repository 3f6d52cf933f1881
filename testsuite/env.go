package testsuite

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/identity"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Env is one test's embedded default: its own GitOps repo, state dir, worker and
// task queue, on the package's shared dev server.
type Env struct {
	*devenv.Env
	t         testing.TB
	TaskQueue string
	log       *logBuffer // the worker's and client's log output, at debug level
}

// NewEnv starts a worker for t on the shared dev server; it stops with the test.
// Options adjust the embedded default, e.g. the terraform backend.
func NewEnv(t testing.TB, opts ...func(*devenv.EnvOptions)) *Env {
	t.Helper()
	sum := sha1.Sum([]byte(t.Name()))
	tq := "test-" + hex.EncodeToString(sum[:6])
	logs := &logBuffer{}
	o := devenv.EnvOptions{StateDir: t.TempDir(), Address: Address(t), TaskQueue: tq, Headless: true,
		Logger: logs.logger()}
	for _, opt := range opts {
		opt(&o)
	}
	e, err := devenv.Start(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() {
		terminateRunning(e, o.TaskQueue)
		e.Stop()
	})
	t.Setenv("TEMPORAL_ADDRESS", e.Address)
	return &Env{Env: e, t: t, TaskQueue: o.TaskQueue, log: logs}
}

// Result is what one CLI run printed and returned.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// cliBound ends a CLI run that hangs (a --follow or --wait that never returns) as a failure
// naming the command, well before the package's timeout would end the whole suite unexplained.
const cliBound = 15 * time.Minute

// CLI runs `slipway ARGS...` in-process against this env's worker.
func (e *Env) CLI(args ...string) Result {
	e.t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"--task-queue", e.TaskQueue, "--actor", "e2e"}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), cliBound)
	defer cancel()
	code := cli.Main(ctx, full, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// MustCLI runs the CLI and fails the test unless it exits with want.
func (e *Env) MustCLI(want int, args ...string) Result {
	e.t.Helper()
	r := e.CLI(args...)
	require.Equal(e.t, want, r.Code, "slipway %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Stdout, r.Stderr)
	return r
}

// Status reads `slipway status -o json --detail all`.
func (e *Env) Status(ref string) contract.Status {
	e.t.Helper()
	r := e.MustCLI(0, "status", ref, "-o", "json", "--detail", "all")
	var st contract.Status
	require.NoError(e.t, json.Unmarshal([]byte(r.Stdout), &st), r.Stdout)
	return st
}

// Resources lists the instance's resources in its real terraform state. Tests provision with
// this code, so the schema is Derive's unless ref carries the recorded names.
func (e *Env) Resources(ref contract.Ref) []terraform.Resource {
	e.t.Helper()
	n := names.Derive(ref.Tenant, ref.Name)
	if ref.Names != nil {
		n = *ref.Names
	}
	ws := terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name, Schema: n.Schema}
	res, err := e.Activities.Terraform.Resources(context.Background(), ws)
	require.NoError(e.t, err)
	return res
}

// terminateRunning ends the test's still-running workflows, so instance IDs
// reused by a later test never land on a task queue nobody polls, and no later test
// lists them. It asks again while any is left: visibility lags, and a run may have
// continued as new meanwhile.
func terminateRunning(e *devenv.Env, taskQueue string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		resp, err := e.Client.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("TaskQueue = '%s' AND ExecutionStatus = 'Running'", taskQueue),
		})
		if err != nil || len(resp.Executions) == 0 {
			return
		}
		for _, ex := range resp.Executions {
			_ = e.Client.Temporal.TerminateWorkflow(ctx, ex.Execution.WorkflowId, "", "test finished")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// PlatformOperator is who the chaos and production harnesses sign as: a platform admin, so their
// destroys and deprovisions are the platform's own and wait for no approval (docs/policy.md).
var PlatformOperator = identity.Actor{Kind: identity.Person, Issuer: "local", Subject: "operator",
	Name: "operator", Groups: []string{"platform-admins"}, Via: "test"}
