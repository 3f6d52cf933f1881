package workerapp

import (
	"context"

	commonpb "go.temporal.io/api/common/v1"
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
// is logged, never the step's (status is rebuilt from the pipeline's result too).
func (a *stepStartsActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if info := activity.GetInfo(ctx); info.Attempt == 1 && !info.IsLocalActivity {
		if p, ok := interceptor.Header(ctx)[contract.HeaderStepStart]; ok {
			told := make(chan struct{})
			go func() {
				defer close(told)
				a.tell(ctx, p)
			}()
			defer func() { <-told }()
		}
	}
	return a.Next.ExecuteActivity(ctx, in)
}

func (a *stepStartsActivity) tell(ctx context.Context, p *commonpb.Payload) {
	log := activity.GetLogger(ctx)
	var st contract.StepStart
	if err := a.s.dc.FromPayload(p, &st); err != nil {
		log.Warn("step start not told to its instance", "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, tellTimeout)
	defer cancel()
	if err := activity.GetClient(ctx).SignalWorkflow(ctx, st.Target, "", contract.SignalStep, st.Event); err != nil {
		log.Warn("step start not told to its instance", "instance", st.Target, "error", err)
	}
}
