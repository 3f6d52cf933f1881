package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/observe"
)

// Observer names: its workflow type, its query and the signal that sets its interval.
const (
	ObserverWorkflowName = "DeployerObserverWorkflow"
	QueryObserver        = "observer"
	SignalObserverConfig = "observer-config"
	// observerSweepsPerRun bounds one run's history (about ten events a sweep).
	observerSweepsPerRun = 200
)

// ObserverInput starts, or continues, the observer of one deployer connection.
type ObserverInput struct {
	Interval time.Duration  `json:"interval"`
	State    *ObserverState `json:"state,omitempty"`
}

// ObserverConfig is what a starting worker tells a running observer.
type ObserverConfig struct {
	Interval time.Duration `json:"interval"`
}

// ObserverState is what the observer knows of its own sweeps; the query returns it.
type ObserverState struct {
	Interval    time.Duration              `json:"interval"`
	Started     time.Time                  `json:"started"`
	LastSweep   time.Time                  `json:"lastSweep,omitzero"` // the last sweep that listed the apps
	Failures    int                        `json:"failures"`           // sweeps failed in a row
	LastError   string                     `json:"lastError,omitempty"`
	StaleMarked bool                       `json:"staleMarked,omitempty"` // watched instances were told they are not observed
	Sweeps      int                        `json:"sweeps"`
	Signalled   int                        `json:"signalled"` // instances told of a change, over every run
	Last        contract.ObserveAppsOutput `json:"last"`
}

// DeployerObserverWorkflow watches one deployer connection: every interval, one activity lists
// every app and signals only the instances whose app changed, so a quiet fleet costs one list
// call per interval and no instance workflow task. When the deployer cannot be read for
// observe.StaleAfter intervals, it tells the watched instances once that they are not observed.
func DeployerObserverWorkflow(ctx workflow.Context, in ObserverInput) error {
	st := ObserverState{Interval: in.Interval, Started: workflow.Now(ctx)}
	if in.State != nil {
		st = *in.State
	}
	if st.Interval <= 0 {
		st.Interval = observe.DefaultInterval
	}
	if err := workflow.SetQueryHandler(ctx, QueryObserver, func() (ObserverState, error) { return st, nil }); err != nil {
		return err
	}
	config := workflow.GetSignalChannel(ctx, SignalObserverConfig)
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	for run := 0; ; run++ {
		st.sweep(ctx, id)
		if run+1 >= observerSweepsPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			st.drainConfig(config)
			return workflow.NewContinueAsNewError(ctx, ObserverWorkflowName, ObserverInput{Interval: st.Interval, State: &st})
		}
		st.wait(ctx, config)
	}
}

// sweep runs one observation and folds its outcome into the state.
func (st *ObserverState) sweep(ctx workflow.Context, id string) {
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

// wait sleeps one interval; a new interval from a worker starts the next sweep at once.
func (st *ObserverState) wait(ctx workflow.Context, config workflow.ReceiveChannel) {
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(workflow.NewTimer(tctx, st.Interval), func(workflow.Future) {})
	sel.AddReceive(config, func(c workflow.ReceiveChannel, _ bool) {
		var cfg ObserverConfig
		c.Receive(ctx, &cfg)
		st.apply(cfg)
	})
	sel.Select(ctx)
}

func (st *ObserverState) drainConfig(config workflow.ReceiveChannel) {
	var cfg ObserverConfig
	for config.ReceiveAsync(&cfg) {
		st.apply(cfg)
	}
}

func (st *ObserverState) apply(cfg ObserverConfig) {
	if cfg.Interval > 0 {
		st.Interval = cfg.Interval
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
