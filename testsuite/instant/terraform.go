package instant

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Terraform is an instant terraform: each workspace's "state" is the hash of the files last
// applied, one resource per .tf file. Plans compare the prepared files with it, so a changed
// config plans a change and an unchanged one plans none, as terraform would.
type Terraform struct {
	mu  sync.Mutex
	wss map[string]*workspace
}

type workspace struct {
	files       map[string][]byte // prepared
	initialized bool
	applied     string   // hash of the files the state was applied from; "" = no state
	resources   []string // addresses in the state
	serial      int64
	plans       map[string]plan // plan file -> plan
	appliedSHAs map[string]bool
	tampered    bool // changed outside terraform since the last apply (Tamper)
}

type plan struct {
	sha       string
	destroy   bool
	hash      string
	resources []string
}

var _ activities.Terraform = (*Terraform)(nil)

// NewTerraform returns an instant terraform with no workspaces.
func NewTerraform() *Terraform { return &Terraform{wss: map[string]*workspace{}} }

func (t *Terraform) ws(ws terraform.Workspace) *workspace {
	k := ws.Tenant + "/" + ws.Name
	w, ok := t.wss[k]
	if !ok {
		w = &workspace{plans: map[string]plan{}, appliedSHAs: map[string]bool{}}
		t.wss[k] = w
	}
	return w
}

func (t *Terraform) Dir(ws terraform.Workspace) string {
	return "instant://" + ws.Tenant + "/" + ws.Name
}
func (t *Terraform) Backend() string { return "instant" }

func (t *Terraform) Prepare(_ context.Context, ws terraform.Workspace, files map[string][]byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ws(ws).files = files
	return nil
}

func (t *Terraform) Initialized(ws terraform.Workspace) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ws(ws).initialized
}

func (t *Terraform) Init(_ context.Context, ws terraform.Workspace) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ws(ws).initialized = true
	return nil
}

func (t *Terraform) Plan(_ context.Context, ws terraform.Workspace, name string, destroy bool) (*terraform.Plan, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.ws(ws)
	if !w.initialized {
		return nil, fmt.Errorf("instant terraform: plan in %s before init", t.Dir(ws))
	}
	p := plan{destroy: destroy, hash: hashFiles(w.files), resources: addresses(w.files)}
	s := terraform.PlanSummary{}
	switch {
	case destroy:
		p.resources = nil
		s.Destroy = len(w.resources)
		s.Resources = changes(w.resources, "delete")
	case w.applied == "":
		s.Add = len(p.resources)
		s.Resources = changes(p.resources, "create")
	case w.applied != p.hash:
		s.Change = len(p.resources)
		s.Resources = changes(p.resources, "update")
	}
	s.NoChanges = s.Add+s.Change+s.Destroy == 0
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%v|%d|%s", ws.Tenant, ws.Name, destroy, w.serial, p.hash)))
	p.sha = hex.EncodeToString(sum[:])
	file := name + ".tfplan"
	w.plans[file] = p
	return &terraform.Plan{File: file, SHA256: p.sha, Summary: s}, nil
}

func (t *Terraform) Apply(_ context.Context, ws terraform.Workspace, in *terraform.Plan) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.ws(ws)
	if w.appliedSHAs[in.SHA256] {
		return true, nil
	}
	p, ok := w.plans[in.File]
	if !ok || p.sha != in.SHA256 {
		return false, fmt.Errorf("instant terraform: no saved plan %s with hash %s in %s", in.File, in.SHA256, t.Dir(ws))
	}
	w.appliedSHAs[p.sha] = true
	w.serial++
	w.tampered = false
	if p.destroy {
		w.applied, w.resources = "", nil
		return false, nil
	}
	w.applied, w.resources = p.hash, p.resources
	return false, nil
}

func (t *Terraform) Destroy(_ context.Context, ws terraform.Workspace) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.ws(ws)
	if w.resources != nil {
		w.serial++
	}
	w.applied, w.resources = "", nil
	return nil
}

// Outputs: the stand-in keeps no outputs.
func (t *Terraform) Outputs(context.Context, terraform.Workspace) (map[string]any, error) {
	return map[string]any{}, nil
}

// PlanJSON: the stand-in keeps no plan JSON; the policy reads the summary's actions.
func (t *Terraform) PlanJSON(context.Context, terraform.Workspace, string) (json.RawMessage, error) {
	return nil, nil
}

func (t *Terraform) Resources(_ context.Context, ws terraform.Workspace) ([]terraform.Resource, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []terraform.Resource
	for _, a := range t.ws(ws).resources {
		typ, name, _ := strings.Cut(a, ".")
		out = append(out, terraform.Resource{Address: a, Type: typ, Name: name})
	}
	return out, nil
}

func (t *Terraform) Serial(_ context.Context, ws terraform.Workspace) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ws(ws).serial, nil
}

func (t *Terraform) State(ctx context.Context, ws terraform.Workspace) (terraform.State, error) {
	res, _ := t.Resources(ctx, ws)
	serial, _ := t.Serial(ctx, ws)
	return terraform.State{Resources: res, Outputs: map[string]any{}, Serial: serial}, nil
}

func (t *Terraform) Lock(context.Context, terraform.Workspace) (*terraform.LockInfo, bool, error) {
	return nil, false, nil
}

func (t *Terraform) ForceUnlock(context.Context, terraform.Workspace, string) error { return nil }

// addresses names one resource per .tf file, so the instant state has the config's shape.
func addresses(files map[string][]byte) []string {
	var out []string
	for name := range files {
		if base, ok := strings.CutSuffix(name, ".tf"); ok {
			out = append(out, "terraform_data."+strings.ReplaceAll(base, "/", "_"))
		}
	}
	sort.Strings(out)
	return out
}

func changes(addrs []string, action string) []terraform.ResourceChange {
	var out []terraform.ResourceChange
	for _, a := range addrs {
		typ, name, _ := strings.Cut(a, ".")
		out = append(out, terraform.ResourceChange{Address: a, Type: typ, Name: name, Actions: []string{action}})
	}
	return out
}

func hashFiles(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Drift reports a Tamper since the last apply as changed outside terraform, and prepared files
// that differ from the applied ones as pending.
func (t *Terraform) Drift(_ context.Context, ws terraform.Workspace) (*terraform.DriftReport, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.ws(ws)
	d := &terraform.DriftReport{}
	if w.tampered {
		d.Outside = changes(w.resources, "update")
	}
	if w.applied != "" && w.applied != hashFiles(w.files) {
		d.Pending = changes(addresses(w.files), "update")
	}
	return d, nil
}

// Tamper changes ws's infrastructure behind terraform's back, until the next apply.
func (t *Terraform) Tamper(ws terraform.Workspace) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ws(ws).tampered = true
}
