package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/observe"
)

// observerSweepsPerRun bounds one run's history (about ten events a sweep).
const observerSweepsPerRun = 200

// ObserverInput starts, or continues, the observer of one deployer connection.
type ObserverInput struct {
	Interval time.Duration           `json:"interval"`
	State    *contract.ObserverState `json:"state,omitempty"`
}

// DeployerObserverWorkflow watches one deployer connection: every interval, one activity lists
// every app and signals only the instances whose app changed, so a quiet fleet costs one list
// call per interval and no instance workflow task. When the deployer cannot be read for
// observe.StaleAfter intervals, it tells the watched instances once that they are not observed.
func DeployerObserverWorkflow(ctx workflow.Context, in ObserverInput) error {
	st := contract.ObserverState{Interval: in.Interval, Started: workflow.Now(ctx)}
	if in.State != nil {
		st = *in.State
	}
	if st.Interval <= 0 {
		st.Interval = observe.DefaultInterval
	}
	if err := workflow.SetQueryHandler(ctx, contract.QueryObserver, func() (contract.ObserverState, error) { return st, nil }); err != nil {
		return err
	}
	config := workflow.GetSignalChannel(ctx, contract.SignalObserverConfig)
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	for run := 0; ; run++ {
		sweepObserved(ctx, &st, id)
		if run+1 >= observerSweepsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			drainObserverConfig(&st, config)
			return workflow.NewContinueAsNewError(ctx, contract.ObserverWorkflowName, ObserverInput{Interval: st.Interval, State: &st})
		}
		waitObserverInterval(ctx, &st, config)
	}
}

// sweepObserved runs one observation and folds its outcome into the state.
func sweepObserved(ctx workflow.Context, st *contract.ObserverState, id string) {
	in := contract.ObserveAppsInput{Observer: id, Interval: st.Interval}
	var out contract.ObserveAppsOutput
	err := workflow.ExecuteActivity(observeCtx(ctx, st.Interval), contract.ActObserveApps, in).Get(ctx, &out)
	st.Sweeps++
	if err == nil {
		st.LastSweep, st.Failures, st.LastError, st.StaleMarked, st.Last = out.At, 0, "", false, out
		st.Signalled += out.Signalled
		return
	}
	st.Failures++
	st.LastError = errorMessage(err)
	since := st.LastSweep
	if since.IsZero() {
		since = st.Started
	}
	if st.StaleMarked || !observe.IsStale(since, st.Interval, workflow.Now(ctx)) {
		return
	}
	in.MarkStale, in.LastSeen = true, st.LastSweep
	if err := workflow.ExecuteActivity(observeCtx(ctx, st.Interval), contract.ActObserveApps, in).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Warn("observer: could not mark instances stale", "error", err)
		return
	}
	st.StaleMarked = true
	st.Signalled += out.Signalled
}

// waitObserverInterval sleeps one interval; a new interval from a worker starts the next sweep at once.
func waitObserverInterval(ctx workflow.Context, st *contract.ObserverState, config workflow.ReceiveChannel) {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(tctx, st.Interval), func(workflow.Future) {})
	sel.AddReceive(config, func(c workflow.ReceiveChannel, _ bool) {
		var cfg contract.ObserverConfig
		c.Receive(ctx, &cfg)
		st.Apply(cfg)
	})
	sel.Select(ctx)
}

func drainObserverConfig(st *contract.ObserverState, config workflow.ReceiveChannel) {
	var cfg contract.ObserverConfig
	for config.ReceiveAsync(&cfg) {
		st.Apply(cfg)
	}
}

// observeCtx bounds one sweep: it heartbeats, and a failed one is retried once, then left to
// the next interval rather than piling up.
func observeCtx(ctx workflow.Context, interval time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: interval,
			MaximumAttempts: 2, NonRetryableErrorTypes: contract.NonRetryable},
	})
}
