package contract

import (
	"strings"
	"time"
)

// SignalStepRetrying tells an instance that its pipeline's running step failed RetryingAfter
// attempts in a row (sent by the worker's activity interceptor, internal/workerapp/retrying.go).
const SignalStepRetrying = "step-retrying"

// RetryingAfter is the attempt at which a step's instance turns Retrying and is notified: two
// failures in a row are a blip, three a pattern (attempts 1 s, 2 s, 4 s apart).
const RetryingAfter = 3

// CondRetrying is the instance's condition while a step of its running operation is retried.
const CondRetrying = "Retrying"

// ReasonNoWorker is the Retrying condition's reason when status finds the operation stalled:
// its pipeline has a task no worker took (Stalled).
const ReasonNoWorker = "NoWorker"

// StepRetry is a step whose activity failed and is being tried again, as Temporal's pending
// activity records it: shown from the second attempt in status (operation.retrying), carried by
// SignalStepRetrying at RetryingAfter.
type StepRetry struct {
	Step string `json:"step"`
	// Activity is the pending activity's type; ActivityID its ID in the pipeline (retry resets it).
	Activity   string `json:"activity,omitempty"`
	ActivityID string `json:"activityID,omitempty"`
	Attempt    int    `json:"attempt"`
	LastError  string `json:"lastError,omitempty"`
	// Since is when the step's first attempt was scheduled; LastFailure when the last one failed.
	Since       time.Time `json:"since,omitzero"`
	LastFailure time.Time `json:"lastFailure,omitzero"`
	// NextTry is when Temporal schedules the next attempt (zero while one runs).
	NextTry time.Time `json:"nextTry,omitzero"`
	// LastHeartbeat is the running attempt's last heartbeat (steps that heartbeat).
	LastHeartbeat time.Time `json:"lastHeartbeat,omitzero"`
	// Running is true while an attempt runs, false while it waits for NextTry.
	Running bool `json:"running"`
	// Operation and Pipeline name what the signal is about: the instance ignores a stale one.
	Operation string `json:"operation,omitempty"`
	Pipeline  string `json:"pipeline,omitempty"`
}

// ActRetryNow resets a retrying step's activity so it is tried at once (retry on a running operation).
const ActRetryNow = "RetryNow"

// RetryNowInput names the pending activity of a pipeline to try again now.
type RetryNowInput struct {
	Pipeline   string `json:"pipeline"`
	ActivityID string `json:"activityID"`
}

// PipelineOf reads the instance workflow ID and the operation ID back from a pipeline's workflow
// ID (PipelineWorkflowID); ok is false for any other workflow.
func PipelineOf(workflowID string) (instance, opID string, ok bool) {
	parts := strings.Split(workflowID, "/")
	if len(parts) != 5 || parts[0] != "instance" || !strings.HasPrefix(parts[4], "attempt-") {
		return "", "", false
	}
	_, opID, ok = strings.Cut(parts[3], "-")
	return strings.Join(parts[:3], "/"), opID, ok && opID != ""
}
