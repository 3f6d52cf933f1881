package workerapp

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.uber.org/zap"
)

// Settings of the worker's stop (contract names; the chart derives its terminationGracePeriodSeconds from them).
const (
	EnvWorkerGrace        = "SLIPWAY_WORKER_GRACE"
	EnvTerraformStopGrace = "SLIPWAY_TERRAFORM_STOP_GRACE"
	// DefaultWorkerGrace lets a long apply finish during a rollout.
	DefaultWorkerGrace = 5 * time.Minute
	// DefaultTerraformStopGrace is how long an interrupted terraform gets to save state and unlock.
	DefaultTerraformStopGrace = 30 * time.Second
)

// MaxTerraformStopGrace is the longest SLIPWAY_TERRAFORM_STOP_GRACE a worker takes: a terraform step
// whose stack budget ran out must stop within workflows.BudgetMargin, and it may take stopTakes of it.
const MaxTerraformStopGrace = time.Minute

// stopTakes is the longest an interrupted terraform takes to end: a running provisioner first
// gets half the grace, then terraform the grace after SIGINT, and its result a moment to report.
func stopTakes(grace time.Duration) time.Duration { return grace*3/2 + 15*time.Second }

// parseGrace reads a positive duration from the variable key, or def when it is unset.
func parseGrace(key string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(key)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d <= 0 {
		err = fmt.Errorf("must be positive")
	}
	if err != nil {
		return def, fmt.Errorf("%s: %q is not a positive duration such as 90s or 5m: %w", key, v, err)
	}
	return d, nil
}

// running counts the activities executing in this process: the stop sequence reports them and
// waits for the ones it cancelled to report their result before the process exits.
var running atomic.Int64

// countActivities is the interceptor that keeps running.
type countActivities struct {
	interceptor.WorkerInterceptorBase
}

func (*countActivities) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &countActivity{}
	i.Next = next
	return i
}

type countActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *countActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	running.Add(1)
	defer running.Add(-1)
	return a.Next.ExecuteActivity(ctx, in)
}

// Stop says how a worker process stops on SIGTERM or SIGINT.
type Stop struct {
	// Grace is how long running activities may go on once polling stopped (WorkerStopTimeout).
	Grace time.Duration
	// TerraformGrace is how long an interrupted terraform may take to save state and unlock.
	TerraformGrace time.Duration
	// OnStopping runs as the stop begins, before the grace (readiness goes false there).
	OnStopping func()
	Log        *zap.Logger
}

// resultMargin is the time a cancelled activity gets, beyond terraform's, to report its result.
const resultMargin = 10 * time.Second

// RunUntil starts every worker, waits for interrupt, then stops them: polling ends at once,
// running activities get s.Grace to finish, then are cancelled (terraform gets SIGINT) and the
// process waits for them to report their (retryable) result, so the step goes on elsewhere
// at once instead of after its heartbeat timeout.
func (ws Workers) RunUntil(interrupt <-chan interface{}, s Stop) error {
	log := s.Log
	if log == nil {
		log = zap.NewNop()
	}
	for i, w := range ws {
		if err := w.Start(); err != nil {
			for _, started := range ws[:i] {
				started.Stop()
			}
			return err
		}
	}
	sig := <-interrupt
	start := time.Now()
	n := running.Load()
	log.Info("worker stopping: polling stopped, running activities get the grace to finish",
		zap.Any("signal", sig), zap.Int64("runningActivities", n), zap.Duration("grace", s.Grace))
	if s.OnStopping != nil {
		s.OnStopping()
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() { defer wg.Done(); w.Stop() }()
	}
	wg.Wait()
	left := running.Load()
	if left > 0 {
		log.Warn("worker grace ran out: running activities cancelled, terraform interrupted; waiting for them to report",
			zap.Int64("cancelledActivities", left), zap.Duration("terraformStopGrace", s.TerraformGrace))
		// A running provisioner may hold terraform's SIGINT for half the terraform grace (internal/terraform/interrupt.go).
		deadline := time.Now().Add(s.TerraformGrace*3/2 + resultMargin)
		for running.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	log.Info("worker stopped", zap.Duration("took", time.Since(start)), zap.Int64("runningAtStop", n),
		zap.Int64("cancelled", left), zap.Int64("unfinished", running.Load()))
	return nil
}

// InterruptCh closes on SIGTERM or SIGINT.
func InterruptCh() <-chan interface{} { return worker.InterruptCh() }
