package workerapp

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// stepStarts sends a pipeline step's start signal from the worker that runs the step's first
// activity, before its first attempt: the pipeline then records neither the signal (2 events) nor
// the workflow task its acknowledgement takes (3), about 5 events a step (docs/performance.md).
// The signal is attested by the worker's client, as the retry notice is.
type stepStarts struct {
	interceptor.WorkerInterceptorBase
	dc converter.DataConverter
	// signal sends the start; nil sends it with the worker's client (activity.GetClient).
	signal func(ctx context.Context, target string, ev contract.StepEvent) error
}

func (s *stepStarts) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &stepStartsInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, s: s}
}

type stepStartsInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	s *stepStarts
}

func (i *stepStartsInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&stepStartsOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, s: i.s})
}

type stepStartsOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	s *stepStarts
}

// ExecuteActivity moves the step's start into the header of the first activity the step schedules;
// the payload goes through the worker's converter, so history holds it encrypted like any input.
func (o *stepStartsOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if st, ok := ctx.Value(contract.StepStartKey{}).(*contract.StepStart); ok && !st.Taken {
		if h := interceptor.WorkflowHeader(ctx); h != nil {
			if p, err := o.s.dc.ToPayload(*st); err == nil {
				h[contract.HeaderStepStart] = p
				st.Taken = true
			}
		}
	}
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

func (s *stepStarts) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &stepStartsActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, s: s}
}

type stepStartsActivity struct {
	interceptor.ActivityInboundInterceptorBase
	s *stepStarts
}

// ExecuteActivity tells the instance while the first attempt runs and returns the attempt's
// result only once told, so the start is in the instance's history before the step can end and
// the signal's round trip is not in front of the step (docs/performance.md); a failure to tell
// is logged, never the step's (status is rebuilt from the pipeline's result too). A deferred
// start is told once the attempt has run contract.StepStartDelay, or when it fails (its Retrying
// names the step); an attempt that succeeds sooner tells nothing: its record and the ones the
// start carried ride on the next step's signal, or on the pipeline's result.
func (a *stepStartsActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	p, ok := interceptor.Header(ctx)[contract.HeaderStepStart]
	if info.Attempt != 1 || info.IsLocalActivity || !ok {
		return a.Next.ExecuteActivity(ctx, in)
	}
	var st contract.StepStart
	if err := a.s.dc.FromPayload(p, &st); err != nil {
		activity.GetLogger(ctx).Warn("step start not told to its instance", "error", err)
		return a.Next.ExecuteActivity(ctx, in)
	}
	told, failed := make(chan struct{}), make(chan bool, 1)
	go func() {
		defer close(told)
		if st.Defer {
			timer := time.NewTimer(contract.StepStartDelay)
			defer timer.Stop()
			select {
			case <-timer.C:
			case f := <-failed:
				if !f {
					return
				}
			}
		}
		a.tell(ctx, st)
	}()
	res, err := a.Next.ExecuteActivity(ctx, in)
	failed <- err != nil
	<-told
	return res, err
}

func (a *stepStartsActivity) tell(ctx context.Context, st contract.StepStart) {
	log := activity.GetLogger(ctx)
	ctx, cancel := context.WithTimeout(ctx, tellTimeout)
	defer cancel()
	send := a.s.signal
	if send == nil {
		send = func(ctx context.Context, target string, ev contract.StepEvent) error {
			return activity.GetClient(ctx).SignalWorkflow(ctx, target, "", contract.SignalStep, ev)
		}
	}
	if err := send(ctx, st.Target, st.Event); err != nil {
		log.Warn("step start not told to its instance", "instance", st.Target, "error", err)
	}
}
