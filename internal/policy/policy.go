// Package policy decides every request: Rego policies (OPA) owned by the platform say whether
// an actor may do an operation to an instance, and whether a person must approve it first.
// A bundle is a directory of .rego files (package slipway or slipway.*) and data files; its
// entry point is data.slipway.decision. The bundle compiles once, at Load.
package policy

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/windows"
)

// EnvDir names the operator's policy directory; unset, the embedded default bundle decides.
const EnvDir = "SLIPWAY_POLICY_DIR"

// Query is the bundle's entry point.
const Query = "data.slipway.decision"

// Operations are the operations an Input may name.
var Operations = []string{
	"provision", "deploy", "plan", "archive", "destroy", "deprovision",
	"retry", "resolve", "abandon",
	"approve", "reject",
	"gate", "cancel", "rollout", "drift", "refresh",
	"new-run",              // an operator moving an idle instance to a new run (retiring a workflow version)
	"protect", "unprotect", // deletion protection: set it, or lift it (the default: platform admins only)
	"extend",  // moving an instance's expiry on
	"secrets", // slipway server reading an instance's secrets for a person
	"read",    // slipway server reading an instance, or what a fleet read shows of a tenant ("*": every tenant)
	"stack",   // a platform decision about a stack's releases: cut one, point a channel (tenant "*")
}

// FleetOperations may name no instance: their tenant and name are empty (or "*") when they span
// the fleet or a tenant.
var FleetOperations = []string{"rollout", "drift", "stack"}

// Input is what a policy decides on.
type Input struct {
	Actor      identity.Actor `json:"actor"`
	Operation  string         `json:"operation"` // one of Operations
	Tenant     string         `json:"tenant"`
	Name       string         `json:"name"`
	State      string         `json:"state"`                // the instance's state now
	NextState  string         `json:"nextState,omitempty"`  // where the operation leads
	ConfigDiff string         `json:"configDiff,omitempty"` // unified diff of the instance file, when it changes
	Stack      Stack          `json:"stack"`
	// Labels are the instance's labels (its last accepted config's; a provision's or deploy's new
	// config's own), which change windows select by.
	Labels   map[string]string `json:"labels,omitempty"`
	Plan     json.RawMessage   `json:"plan,omitempty"`     // `terraform show -json` of the saved plan (deploy, destroy, deprovision, at the approval step)
	Approval *ApprovalInput    `json:"approval,omitempty"` // approve/reject: who asked, what is required, who approved so far
	// Request is the request's own arguments as sent (an operation's, a decision's, a rollout's
	// spec, a drift check's scope): everything that changes what happens is in it.
	// A JSON object once encoded (a struct or a map).
	Request any `json:"request,omitempty"`
	// Instances are the instances (TENANT/NAME) the request touches.
	Instances []string `json:"instances,omitempty"`
	// Current is the operation a retry, resolve or abandon decides on.
	Current *Operation `json:"current,omitempty"`
	// Windows is where the instance stands in the platform's change windows now (data.slipway.windows):
	// the windows it is inside, whether a state-changing operation may start, and the next opening.
	// Set by the worker for the operations windows hold, when a window covers the instance.
	Windows *windows.Status `json:"windows,omitempty"`
	// Fill names what the worker reads into the input before the policy decides (Authorize),
	// so it never travels in workflow history; the policy never sees it.
	Fill *Fill `json:"fill,omitempty"`
}

// Fill names what the worker reads into an Input at an approval: the saved plan's JSON (Plan,
// with before and after values, sensitive ones masked) and the instance file's diff (ConfigDiff).
type Fill struct {
	Tenant string `json:"tenant"`
	Name   string `json:"name"`
	// PlanName is the saved plan's name in the plan store ("" reads none).
	PlanName string `json:"planName,omitempty"`
	// Diff asks for the instance file's diff: at DeployedRevision ("" for none) against
	// ConfigYAML, or main's file when ConfigYAML is "".
	Diff             bool   `json:"diff,omitempty"`
	DeployedRevision string `json:"deployedRevision,omitempty"`
	ConfigYAML       string `json:"configYAML,omitempty"`
}

// Operation is an instance's current operation, as a decision on it sees it.
type Operation struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Result     string          `json:"result"`               // running, failed, ...
	FailedStep string          `json:"failedStep,omitempty"` // the step it failed at
	Requester  *identity.Actor `json:"requester,omitempty"`  // who asked for it (nil: not verified)
}

// Stack is the stack's settings a policy sees.
type Stack struct {
	Name     string        `json:"name"`
	Stateful []string      `json:"stateful,omitempty"` // resource addresses or types the stack marks stateful
	Approval approval.Rule `json:"approval"`           // the stack's (and instance's) approval: settings, as input
}

// ApprovalInput is the approval an approve or reject acts on.
type ApprovalInput struct {
	Requester identity.Actor   `json:"requester"`
	Required  Requirement      `json:"required"`
	Approvals []identity.Actor `json:"approvals,omitempty"`
}

// Requirement says who must approve. A group "user:NAME" is the person NAME alone.
type Requirement struct {
	Groups    []string `json:"groups"`    // any member of any of these may approve
	Count     int      `json:"count"`     // how many distinct approvers (>= 1)
	AllowSelf bool     `json:"allowSelf"` // the requester may approve their own request
}

// Decision is a policy's answer.
type Decision struct {
	Allow      bool         `json:"allow"`
	Reason     string       `json:"reason,omitempty"`   // why denied (or why approval is needed)
	Approval   *Requirement `json:"approval,omitempty"` // non-nil: allowed once approved
	PolicyHash string       `json:"policyHash"`         // sha256 of the policy files, sorted by path
	// Windows is the input's windows: an operation outside them is held until the next opening.
	Windows *windows.Status `json:"windows,omitempty"`
}

// Engine evaluates one loaded bundle; it is safe for concurrent use.
type Engine struct {
	b     *bundle
	query rego.PreparedEvalQuery
}

//go:embed default
var defaultFS embed.FS

var (
	defaultOnce   sync.Once
	defaultEngine *Engine
)

// Default returns the embedded default bundle's engine, compiled on first use.
func Default() *Engine {
	defaultOnce.Do(func() {
		e, err := loadFS(defaultBundle(), "default")
		if err != nil {
			// The embedded bundle is tested in this package; it cannot fail at run time.
			panic("policy: the embedded default bundle does not load: " + err.Error())
		}
		defaultEngine = e
	})
	return defaultEngine
}

func defaultBundle() fs.FS {
	sub, err := fs.Sub(defaultFS, "default")
	if err != nil {
		panic(err)
	}
	return sub
}

// FromEnv loads SLIPWAY_POLICY_DIR, else returns Default().
func FromEnv() (*Engine, error) {
	if dir := strings.TrimSpace(os.Getenv(EnvDir)); dir != "" {
		e, err := Load(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvDir, err)
		}
		return e, nil
	}
	return Default(), nil
}

// Load reads, compiles and checks the bundle in dir: a file that does not compile is named
// with its line, and a group the policy names that data.slipway.groups does not declare is
// refused. Errors are *LoadError.
func Load(dir string) (*Engine, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, &LoadError{Problems: []string{err.Error()}}
	}
	if !st.IsDir() {
		return nil, &LoadError{Problems: []string{dir + ": not a directory"}}
	}
	return loadFS(os.DirFS(dir), dir)
}

func loadFS(fsys fs.FS, root string) (*Engine, error) {
	b, err := readBundle(fsys, root)
	if err != nil {
		return nil, err
	}
	if err := b.compile(); err != nil {
		return nil, err
	}
	if err := b.lint(); err != nil {
		return nil, err
	}
	q, err := rego.New(rego.Query(Query), rego.Compiler(b.compiler), rego.Store(b.store())).
		PrepareForEval(context.Background())
	if err != nil {
		return nil, &LoadError{Problems: []string{fmt.Sprintf("%s: preparing %s: %v", root, Query, err)}}
	}
	return &Engine{b: b, query: q}, nil
}

// Hash is the sha256 of the bundle's files (path and content, sorted by path), hex.
func (e *Engine) Hash() string { return e.b.hash }

// Windows are the platform's change windows (data.slipway.windows).
func (e *Engine) Windows() windows.Set { return e.b.windows }

// Source is where the bundle came from: its directory, or "default".
func (e *Engine) Source() string { return e.b.root }

// Decide evaluates data.slipway.decision on in. Bad input is an *InputError; a decision that
// requires approval by a group the bundle does not declare is an *UndeclaredGroupError; a
// policy that fails to evaluate (say, two rules giving decision different values) is an
// *EvalError.
func (e *Engine) Decide(ctx context.Context, in Input) (Decision, error) {
	if err := in.Validate(); err != nil {
		return Decision{}, err
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return Decision{}, &InputError{Field: "input", Message: err.Error()}
	}
	v, err := ast.ValueFromReader(bytes.NewReader(raw))
	if err != nil {
		return Decision{}, &InputError{Field: "input", Message: err.Error()}
	}
	rs, err := e.query.Eval(ctx, rego.EvalParsedInput(v))
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, ctx.Err()
		}
		return Decision{}, &EvalError{Hash: e.b.hash, Message: err.Error()}
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return Decision{}, &EvalError{Hash: e.b.hash, Message: Query + " is undefined for this input"}
	}
	d, err := e.decision(rs[0].Expressions[0].Value)
	if err != nil {
		return Decision{}, err
	}
	d.PolicyHash = e.b.hash
	return d, nil
}

// decision reads the policy's answer, strictly: allow must be a boolean, an approval must name
// declared groups and a count of at least one.
func (e *Engine) decision(v any) (Decision, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Decision{}, &EvalError{Hash: e.b.hash, Message: err.Error()}
	}
	var out struct {
		Allow    *bool        `json:"allow"`
		Reason   any          `json:"reason"`
		Approval *Requirement `json:"approval"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return Decision{}, &EvalError{Hash: e.b.hash, Message: fmt.Sprintf("%s is not {allow, reason, approval: {groups, count, allowSelf}}: %v", Query, err)}
	}
	if out.Allow == nil {
		return Decision{}, &EvalError{Hash: e.b.hash, Message: Query + ".allow is not a boolean: " + string(raw)}
	}
	d := Decision{Allow: *out.Allow}
	if s, ok := out.Reason.(string); ok {
		d.Reason = s
	}
	if d.Allow && out.Approval != nil {
		req := *out.Approval
		if len(req.Groups) == 0 || req.Count < 1 {
			return Decision{}, &EvalError{Hash: e.b.hash, Message: Query + ".approval must name groups and a count of at least 1: " + string(raw)}
		}
		for _, g := range req.Groups {
			if !e.b.declared(g) {
				return Decision{}, &UndeclaredGroupError{Group: g, Hash: e.b.hash}
			}
		}
		d.Approval = &req
	}
	return d, nil
}

// Validate refuses input a policy cannot decide on, naming the field.
func (in Input) Validate() error {
	if !slices.Contains(Operations, in.Operation) {
		return &InputError{Field: "operation", Message: fmt.Sprintf("%q is not an operation (%s)", in.Operation, strings.Join(Operations, ", "))}
	}
	if err := in.Actor.Validate(); err != nil {
		return &InputError{Field: "actor", Message: err.Error()}
	}
	// A rollout or drift check may span tenants (no tenant) or a tenant's instances (no name).
	fleet := slices.Contains(FleetOperations, in.Operation)
	if strings.TrimSpace(in.Tenant) == "" && !fleet {
		return &InputError{Field: "tenant", Message: "empty"}
	}
	if strings.TrimSpace(in.Name) == "" && !fleet {
		return &InputError{Field: "name", Message: "empty"}
	}
	if p := in.Stack.Approval.Policy; p != "" {
		if _, err := approval.ParsePolicy(string(p)); err != nil {
			return &InputError{Field: "stack.approval.policy", Message: err.Error()}
		}
	}
	for i, s := range in.Stack.Stateful {
		if strings.TrimSpace(s) == "" {
			return &InputError{Field: fmt.Sprintf("stack.stateful[%d]", i), Message: "empty"}
		}
	}
	if len(in.Plan) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(in.Plan, &obj); err != nil {
			return &InputError{Field: "plan", Message: "not a JSON object (terraform show -json): " + err.Error()}
		}
	}
	if in.Request != nil {
		raw, err := json.Marshal(in.Request)
		var obj map[string]json.RawMessage
		if err == nil {
			err = json.Unmarshal(raw, &obj)
		}
		if err != nil {
			return &InputError{Field: "request", Message: "not a JSON object: " + err.Error()}
		}
	}
	approving := in.Operation == "approve" || in.Operation == "reject"
	switch {
	case approving && in.Approval == nil:
		return &InputError{Field: "approval", Message: in.Operation + " needs the approval it acts on"}
	case approving:
		if err := in.Approval.Requester.Validate(); err != nil {
			return &InputError{Field: "approval.requester", Message: err.Error()}
		}
		if len(in.Approval.Required.Groups) == 0 {
			return &InputError{Field: "approval.required.groups", Message: "empty: nobody could approve"}
		}
		if in.Approval.Required.Count < 1 {
			return &InputError{Field: "approval.required.count", Message: fmt.Sprintf("%d: must be at least 1", in.Approval.Required.Count)}
		}
	}
	return nil
}
