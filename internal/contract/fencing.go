package contract

// ErrNotCurrent refuses a step of a pipeline run that is not its instance's current operation:
// a copied start of a finished pipeline, a Reset of one, a stale attempt. Never retried.
const ErrNotCurrent = "NotCurrentOperation"

// QueryCurrentPipeline asks an instance which pipeline run acts for it now (PipelineRun).
const QueryCurrentPipeline = "currentPipeline"

// PipelineRun is the fencing token of an instance's current operation: the workflow ID of its
// latest attempt's pipeline and, once the child started, that run's ID. Only that run may act.
type PipelineRun struct {
	Workflow string `json:"workflow,omitempty"`
	Run      string `json:"run,omitempty"` // "" until the instance saw the child start
	Running  bool   `json:"running"`
}

// Admits reports whether the pipeline run (workflowID, runID) is the current operation's.
func (p PipelineRun) Admits(workflowID, runID string) bool {
	return p.Running && p.Workflow == workflowID && (p.Run == "" || p.Run == runID)
}
