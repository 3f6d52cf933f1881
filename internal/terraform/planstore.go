package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SavedPlan is everything another worker needs to apply a plan: the plan file and the
// working directory's configuration it was made from (lock file and backend file included).
type SavedPlan struct {
	SHA256 string            `json:"sha256"`
	Plan   []byte            `json:"plan"`
	Files  map[string][]byte `json:"files"`
	// Policy is the plan's JSON as the policy reads it at the approval (PolicyJSON).
	Policy json.RawMessage `json:"policy,omitempty"`
}

// PlanStore keeps saved plans and apply markers where every worker reaches them, so a plan
// made on one worker is applied on another and a plan is applied at most once.
type PlanStore interface {
	// SavePlan records the plan under (ws, name), replacing an older plan of that name.
	SavePlan(ctx context.Context, ws Workspace, name string, p SavedPlan) error
	// LoadPlan returns the plan recorded under (ws, name), or *PlanNotStoredError.
	LoadPlan(ctx context.Context, ws Workspace, name string) (SavedPlan, error)
	// MarkApplied records that the plan with this hash was applied to ws.
	MarkApplied(ctx context.Context, ws Workspace, sha256, name string) error
	// Applied reports whether the plan with this hash was applied to ws.
	Applied(ctx context.Context, ws Workspace, sha256 string) (bool, error)
}

// PlanNotStoredError: no plan is recorded under the name.
type PlanNotStoredError struct {
	Workspace Workspace
	Name      string
}

func (e *PlanNotStoredError) Error() string {
	return fmt.Sprintf("no plan %q is stored for workspace %s", e.Name, e.Workspace)
}

// WithPlanStore keeps plans and apply markers in s instead of on this host's disk.
func WithPlanStore(s PlanStore) Option {
	return func(r *Runner) {
		if s == nil {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: "WithPlanStore", Value: "<nil>", Reason: "must not be nil"})
			return
		}
		r.plans = s
	}
}

// localPlans is the default PlanStore: files under <stateDir>/plans, readable by this host
// only (0600), like local terraform state. Fine for one worker; several need a shared store.
type localPlans struct{ dir string }

func (l localPlans) path(ws Workspace, parts ...string) string {
	return filepath.Join(append([]string{l.dir, ws.Tenant, ws.Name}, parts...)...)
}

func (l localPlans) SavePlan(_ context.Context, ws Workspace, name string, p SavedPlan) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return writeIfChanged(l.path(ws, name+".json"), data)
}

func (l localPlans) LoadPlan(_ context.Context, ws Workspace, name string) (SavedPlan, error) {
	data, err := os.ReadFile(l.path(ws, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return SavedPlan{}, &PlanNotStoredError{Workspace: ws, Name: name}
	}
	if err != nil {
		return SavedPlan{}, err
	}
	var p SavedPlan
	if err := json.Unmarshal(data, &p); err != nil {
		return SavedPlan{}, fmt.Errorf("plan %q of %s: corrupt store file: %w", name, ws, err)
	}
	return p, nil
}

func (l localPlans) MarkApplied(_ context.Context, ws Workspace, sha256, name string) error {
	return writeIfChanged(l.path(ws, appliedDir, sha256), []byte(name+"\n"))
}

func (l localPlans) Applied(_ context.Context, ws Workspace, sha256 string) (bool, error) {
	_, err := os.Stat(l.path(ws, appliedDir, sha256))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
