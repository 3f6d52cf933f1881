package contract

// HeaderStepStart is the header of a pipeline's activity that carries the start signal of the step
// it begins (a StepStart): the worker sends that signal before the first attempt runs, so the
// pipeline records no signal of its own and takes no workflow task for its acknowledgement.
const HeaderStepStart = "slipway-step-start"

// StepStart is a step's start signal held for its first activity: the instance to tell and the event.
// The pipeline puts one in its context (StepStartKey) and the worker's interceptor moves it into the
// header of the first activity the step schedules, setting Taken.
type StepStart struct {
	Target string    `json:"target"`
	Event  StepEvent `json:"event"`
	Taken  bool      `json:"-"`
}

// StepStartKey is the workflow context key of a step's *StepStart.
type StepStartKey struct{}
