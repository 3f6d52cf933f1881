package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/testsuite"
)

// BenchmarkActivityStep measures what one activity step costs on the dev server
// with the fast settings (docs/design.md: ~20 ms instead of ~100 ms).
// Run: go test ./testsuite/e2e -run '^$' -bench ActivityStep
func BenchmarkActivityStep(b *testing.B) {
	c, err := client.Dial(client.Options{HostPort: testsuite.Address(b), Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(b, err)
	defer c.Close()
	const tq, stepsPerRun = "bench-steps", 20
	w := worker.New(c, tq, worker.Options{})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		for i := 0; i < stepsPerRun; i++ {
			if err := workflow.ExecuteActivity(ctx, "noop").Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}, workflow.RegisterOptions{Name: "bench-steps"})
	w.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "noop"})
	require.NoError(b, w.Start())
	defer w.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: tq}, "bench-steps")
		require.NoError(b, err)
		require.NoError(b, run.Get(context.Background(), nil))
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*stepsPerRun), "ms/step")
}

// BenchmarkUpdateDeploy measures one update (deploy -f: validate, MR, merge,
// terraform init/plan/apply, app) end to end on real git and terraform.
// Run: go test ./testsuite/e2e -run '^$' -bench UpdateDeploy -benchtime 10x
func BenchmarkUpdateDeploy(b *testing.B) {
	e := testsuite.NewEnv(b)
	ref := contract.Ref{Tenant: "bench", Name: "web"}
	cfg := func(n int) string {
		return fmt.Sprintf("stack: example\nparameters:\n  greeting: hello\n  replicas: %d\n", n)
	}
	submit := func(op lifecycle.Operation, yaml string) {
		h, err := e.Client.Submit(context.Background(), ref, op, contract.OperationRequest{ConfigYAML: yaml}, "")
		require.NoError(b, err)
		res, err := h.Get(context.Background())
		require.NoError(b, err)
		require.Equal(b, contract.ResultSucceeded, res.Result, "%+v", res.Failure)
	}
	submit(lifecycle.OpProvision, cfg(1))
	submit(lifecycle.OpDeploy, "")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		submit(lifecycle.OpDeploy, cfg(i+2))
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/update")
}
