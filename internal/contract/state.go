package contract

import (
	"slices"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Step statuses.
const (
	StepRunning = "running"
	StepDone    = "done"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// InstanceState is everything the entity workflow knows; it is carried across continue-as-new.
type InstanceState struct {
	Ref              Ref                   `json:"ref"`
	State            lifecycle.State       `json:"state"`
	Stack            string                `json:"stack,omitempty"`
	Release          string                `json:"release,omitempty"`          // the release it renders ("web@1.5.0"); "" for main's head
	Revision         string                `json:"revision,omitempty"`         // config revision on main, last merged or deployed
	DeployedRevision string                `json:"deployedRevision,omitempty"` // revision of the last successful deploy
	Deployer         string                `json:"deployer,omitempty"`
	Conditions       []lifecycle.Condition `json:"conditions,omitempty"`
	Resources        []Resource            `json:"resources,omitempty"`
	Infrastructure   []string              `json:"infrastructure,omitempty"`
	Outputs          map[string]string     `json:"outputs,omitempty"` // terraform outputs after the last apply, sensitive ones masked, bounded
	Current          *Operation            `json:"current,omitempty"` // the latest operation, running or ended
	History          []Operation           `json:"history,omitempty"` // earlier operations, newest last, without steps
	Decisions        []DecisionRecord      `json:"decisions,omitempty"`
	Abandoned        []Leftover            `json:"abandoned,omitempty"` // leftovers an operator chose to leave
	Observed         *Observed             `json:"observed,omitempty"`  // the last observation of the app
	Observations     []ObservedEvent       `json:"observations,omitempty"`
	Seq              int                   `json:"seq"`
	Epoch            string                `json:"epoch"` // distinguishes this instance's life from an earlier one of the same name
	Started          bool                  `json:"started"`
	Rollout          string                `json:"rollout,omitempty"` // the rollout that last sent an operation
	Drift            *DriftRecord          `json:"drift,omitempty"`   // the last drift check
	DriftChecks      int                   `json:"driftChecks,omitempty"`
	Notices          int                   `json:"notices,omitempty"`         // notifications started, for their IDs
	Gates            []Gate                `json:"gates,omitempty"`           // scheduling gates set now
	GateLog          []GateRecord          `json:"gateLog,omitempty"`         // every gate change, newest last
	Waiting          *GateWait             `json:"waiting,omitempty"`         // the operation held at the gates
	ReadyWatchers    []ReadyWatch          `json:"readyWatchers,omitempty"`   // gated instances waiting for this one's Ready
	Dependencies     []string              `json:"dependencies,omitempty"`    // the TENANT/NAMEs its stack's dependencies name
	Dependents       []string              `json:"dependents,omitempty"`      // the TENANT/NAMEs registered as depending on it (their gate cleared)
	DependentsKnown  bool                  `json:"dependentsKnown,omitempty"` // created where every dependent registers: Dependents is all of them
	Stale            []DependencyStale     `json:"stale,omitempty"`           // dependencies whose changed outputs it could not be sent
	Approval         *ApprovalWait         `json:"approval,omitempty"`        // the plan an operation waits to have approved
	ControlPlane     string                `json:"controlPlane,omitempty"`    // the worker pool that runs its pipelines
	ApprovalLog      []ApprovalRecord      `json:"approvalLog,omitempty"`     // every approval event, newest last
	NamesClaimed     bool                  `json:"namesClaimed,omitempty"`    // Ref.Names are claimed (internal/nameclaim)
	Render           *Render               `json:"render,omitempty"`          // the files slipway's last merge rendered, hashed
	Audit            []AuditRecord         `json:"audit,omitempty"`           // decisions about requests, newest last (bounded)
	Protection       *Protection           `json:"protection,omitempty"`      // destroy and deprovision are refused while set
	Expiry           *Expiry               `json:"expiry,omitempty"`          // when the instance ends, and how
	Labels           map[string]string     `json:"labels,omitempty"`          // the labels of the last accepted config (change windows select by them)
	Settings         Settings              `json:"settings"`
}

// Settings tune an instance; zero values take defaults.
type Settings struct {
	DeployTimeout time.Duration `json:"deployTimeout,omitempty"`
	// ContinueAsNewAfter forces continue-as-new after that many operations in one run (0: when the server suggests).
	ContinueAsNewAfter int `json:"continueAsNewAfter,omitempty"`
}

// defaultDeployTimeout bounds a deploy's wait for Synced+Healthy when the instance sets none.
const defaultDeployTimeout = 10 * time.Minute

// DeployDeadline is how long a deploy waits for Synced+Healthy.
func (s Settings) DeployDeadline() time.Duration {
	if s.DeployTimeout > 0 {
		return s.DeployTimeout
	}
	return defaultDeployTimeout
}

// Operation is one requested pipeline and everything that happened to it.
type Operation struct {
	ID        string              `json:"id"`
	Kind      lifecycle.Operation `json:"kind"`
	RequestID string              `json:"requestID,omitempty"`
	Actor     string              `json:"actor,omitempty"`
	// Requester is the verified actor who asked for it: an approval of it may not be theirs alone.
	Requester *identity.Actor `json:"requester,omitempty"`
	From      lifecycle.State `json:"from"`
	Attempt   int             `json:"attempt"`
	Pipeline  string          `json:"pipeline,omitempty"` // child workflow ID of the latest attempt
	// PipelineRun is that child's run ID once it started: the fencing token's second half.
	PipelineRun string        `json:"pipelineRun,omitempty"`
	Result      string        `json:"result"`
	Step        string        `json:"step,omitempty"`
	Steps       []StepRecord  `json:"steps,omitempty"`
	Failure     *Failure      `json:"failure,omitempty"`
	Progress    Progress      `json:"progress"`
	ConfigYAML  string        `json:"configYAML,omitempty"`
	Adopt       string        `json:"adopt,omitempty"`         // a provision of the config committed at this commit
	Timeout     time.Duration `json:"deployTimeout,omitempty"` // this operation's deploy deadline, if set
	Plan        *PlanSummary  `json:"plan,omitempty"`
	Diff        string        `json:"diff,omitempty"`
	StartedAt   time.Time     `json:"startedAt"`
	EndedAt     time.Time     `json:"endedAt,omitempty"`
	Rollout     string        `json:"rollout,omitempty"`  // the rollout workflow to tell when it ends
	Priority    int           `json:"priority,omitempty"` // the request's task queue priority (0: by sender)
	// ControlPlane is the worker pool its pipelines run on ("" for the entity's own task queue).
	ControlPlane string `json:"controlPlane,omitempty"`
	// Recreate: a deploy that replaces the app's workload objects in place (slipway recreate).
	Recreate bool `json:"recreate,omitempty"`
	// To is the release a plan previews (plan --to).
	To string `json:"to,omitempty"`
	// Cancel is who stopped it while it ran, and for what (cancel-running).
	Cancel *CancelRecord `json:"cancel,omitempty"`
	// Retrying is the step the worker reported retrying (SignalStepRetrying); it holds while that step runs.
	Retrying *StepRetry `json:"retrying,omitempty"`
}

// StepRecord is one step of one attempt.
type StepRecord struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Attempt int    `json:"attempt"`
	Detail  string `json:"detail,omitempty"`
	Error   string `json:"error,omitempty"`
	// Output is what a hook printed or answered, redacted and cut to its tail.
	Output    string    `json:"output,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitempty"`
}

// Failure is the record compensation leaves: where it failed, why, and what is left behind.
type Failure struct {
	Step      string     `json:"step"`
	Error     string     `json:"error"`
	Type      string     `json:"type,omitempty"`
	Leftovers []Leftover `json:"leftovers"`
	At        time.Time  `json:"at"`
}

// Progress is what a pipeline has durably done; a retry skips those steps.
type Progress struct {
	Done     []string            `json:"done,omitempty"`
	Stack    string              `json:"stack,omitempty"`
	Release  string              `json:"release,omitempty"`
	MR       *forge.MergeRequest `json:"mr,omitempty"`
	Revision string              `json:"revision,omitempty"`
	Plan     *PlanOutput         `json:"plan,omitempty"`
	Infra    *InfraOutput        `json:"infra,omitempty"`
	App      *AppStatus          `json:"app,omitempty"`
	// Controls are the approval rule and hooks read with the config.
	Controls *Controls `json:"controls,omitempty"`
	// Render is what this operation's merge rendered, hashed; the instance keeps it from then on.
	Render *Render `json:"render,omitempty"`
	// AcceptedRender is a revision an operator accepted as rendered (resolve --accept-render).
	AcceptedRender string `json:"acceptedRender,omitempty"`
}

// Did reports whether the pipeline durably finished step.
func (p *Progress) Did(step string) bool { return slices.Contains(p.Done, step) }

// DecisionRecord is an operator's retry, resolve or abandon, with who and why.
type DecisionRecord struct {
	Decision    lifecycle.Decision `json:"decision"`
	OperationID string             `json:"operationID"`
	Actor       string             `json:"actor"`
	Reason      string             `json:"reason,omitempty"`
	From        lifecycle.State    `json:"from"`
	To          lifecycle.State    `json:"to"`
	At          time.Time          `json:"at"`
	// ForceUnlock is the terraform lock a resolve forced before resuming.
	ForceUnlock string `json:"forceUnlock,omitempty"`
	// SkippedHook is the hook step a resolve --skip-hook went on past.
	SkippedHook string `json:"skippedHook,omitempty"`
	// AcceptedRender is the revision whose files a resolve --accept-render recorded as rendered;
	// AcceptedFiles and AcceptedDiff are what it accepted, as verify-render found them.
	AcceptedRender string   `json:"acceptedRender,omitempty"`
	AcceptedFiles  []string `json:"acceptedFiles,omitempty"`
	AcceptedDiff   string   `json:"acceptedDiff,omitempty"`
	// RetriedStep is the Retrying step a retry of the running operation had tried at once.
	RetriedStep string `json:"retriedStep,omitempty"`
	// Error says why the decision could not be carried out; the state then did not change.
	Error string `json:"error,omitempty"`
}

// summary drops the steps and config of an ended operation so history stays small.
func (o Operation) Summary() Operation {
	o.Steps, o.ConfigYAML, o.Diff, o.Progress = nil, "", "", Progress{}
	return o
}

// DriftRecord is the last drift check: what differed from the deployed config, or that a
// deploy has since re-applied it.
type DriftRecord struct {
	Drifted   bool      `json:"drifted"`
	Resources []string  `json:"resources,omitempty"`
	Revision  string    `json:"revision"` // the deployed revision it compared with
	Actor     string    `json:"actor,omitempty"`
	CheckedAt time.Time `json:"checkedAt"`
	// ClearedBy is the deploy that re-applied the config after drift was found.
	ClearedBy string `json:"clearedBy,omitempty"`
}

// Operation results.
const (
	ResultRunning   = "running"
	ResultSucceeded = "succeeded"
	ResultFailed    = "failed"
	ResultResolved  = "resolved"
	ResultAbandoned = "abandoned"
	// ResultRejected and ResultExpired end an operation at its approval with nothing applied.
	ResultRejected = "rejected"
	ResultExpired  = "expired"
	// ResultCancelled is an operation cancelled while it waited at its gates: nothing was done.
	ResultCancelled = "cancelled"
)
