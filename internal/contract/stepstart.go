package contract

import "time"

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
	// Defer tells the start only if the step is still running after StepStartDelay or failed: a
	// step that succeeded sooner is news to no one, and its record rides on the next signal.
	Defer bool `json:"defer,omitempty"`
	Taken bool `json:"-"`
}

// StepStartDelay is how long a step with a deferred start runs before its start is told.
const StepStartDelay = time.Second

// StepStartKey is the workflow context key of a step's *StepStart.
type StepStartKey struct{}
