package terraform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
)

// ResourceChange is one resource that a plan changes.
type ResourceChange struct {
	Address, Type, Name string
	// Actions as terraform names them: "create", "update", "delete", "forget"; a replace is two.
	Actions []string
	// Attributes are the attributes the change sets, old and new, sensitive values masked.
	Attributes []AttributeChange
}

// PlanSummary counts a plan's changes; Resources holds only changed ones, sorted by address.
type PlanSummary struct {
	Add, Change, Destroy int
	NoChanges            bool
	Resources            []ResourceChange
}

// Plan is a saved plan file and what it would do.
type Plan struct {
	File   string
	SHA256 string
	// Summary is filled by Runner.Plan.
	Summary PlanSummary
}

// planNameRE keeps plan names plain file names inside the working directory.
var planNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Plan runs `terraform plan -out=<dir>/<planName>.tfplan` (a destroy plan if destroy)
// and summarises the saved plan.
func (r *Runner) Plan(ctx context.Context, ws Workspace, planName string, destroy bool) (*Plan, error) {
	if !planNameRE.MatchString(planName) {
		return nil, &InvalidInputError{Field: "planName", Value: planName,
			Reason: "must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"}
	}
	c, err := r.open(ctx, ws, "plan")
	if err != nil {
		return nil, err
	}
	defer c.close()
	file := filepath.Join(r.Dir(ws), planName+planExt)
	// A failed plan must not leave an older file under this name to be applied by mistake.
	if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
		return nil, &CommandError{Command: "plan", Workspace: ws, Err: err}
	}
	p, err := r.planTo(ctx, c, ws, file, destroy)
	if err != nil {
		return nil, err
	}
	saved, err := r.savedPlan(ws, file)
	var bad *InvalidInputError
	if errors.As(err, &bad) {
		_ = os.Remove(file) // not to be applied
		return nil, err
	}
	if err != nil {
		return nil, &CommandError{Command: "plan", Workspace: ws, Err: err}
	}
	if saved.Policy, err = PolicyJSON(p); err != nil {
		return nil, &CommandError{Command: "plan", Workspace: ws, Err: err}
	}
	if _, named := saved.Files[EngineFile]; named && c.engine.Version != nil {
		saved.Files[EngineFile] = []byte(c.engine.Name + " = " + c.engine.Version.String() + "\n")
	}
	// Stored last: a plan in the store is one that terraform could read back.
	if err := r.plans.SavePlan(ctx, ws, planName, saved); err != nil {
		return nil, storeErr(ws, "plan", err)
	}
	return &Plan{File: file, SHA256: saved.SHA256, Summary: summarize(p)}, nil
}

// planTo runs `terraform plan -out=file` with c and reads the saved plan back as JSON.
func (r *Runner) planTo(ctx context.Context, c *call, ws Workspace, file string, destroy bool) (*tfjson.Plan, error) {
	err := c.recorded(ctx, func() error {
		_, err := c.tf.Plan(ctx, tfexec.Out(file), tfexec.Destroy(destroy), tfexec.LockTimeout("0s"))
		return c.fail(err)
	})
	if err != nil {
		return nil, err
	}
	show, err := r.open(ctx, ws, cmdShow)
	if err != nil {
		return nil, err
	}
	defer show.close()
	p, err := show.tf.ShowPlanFile(ctx, file)
	if err != nil {
		return nil, show.fail(err)
	}
	return p, nil
}

// savedPlan reads the plan file, the files Prepare wrote beside it (its filesRecord, each checked
// unchanged), init's lock file and Prepare's records: nothing else terraform's code wrote there.
func (r *Runner) savedPlan(ws Workspace, file string) (SavedPlan, error) {
	plan, err := os.ReadFile(file)
	if err != nil {
		return SavedPlan{}, err
	}
	dir := r.Dir(ws)
	files := map[string][]byte{}
	listed := r.record(ws, filesRecord)
	if listed == "" {
		return SavedPlan{}, fmt.Errorf("no record of the files Prepare wrote in %s", dir)
	}
	for _, line := range strings.Split(listed, "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		data, err := readOwn(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return SavedPlan{}, err
		}
		if bytesSHA256(data) != sum {
			return SavedPlan{}, &InvalidInputError{Field: "files", Value: name,
				Reason: "changed in the working directory during the plan (terraform's code, a provider or a provisioner, wrote it): the plan is not stored"}
		}
		files[name] = data
	}
	for _, name := range []string{depLockFile, StackFile, CredentialsFile, EngineFile} {
		read, from := os.ReadFile, r.recordDir(ws)
		if name == depLockFile {
			read, from = readOwn, dir
		}
		data, err := read(filepath.Join(from, name))
		switch {
		case err == nil:
			files[name] = data
		case !errors.Is(err, fs.ErrNotExist):
			return SavedPlan{}, err
		}
	}
	return SavedPlan{SHA256: bytesSHA256(plan), Plan: plan, Files: files}, nil
}

// summarize counts changes the way terraform's own "Plan: N to add, ..." line does.
func summarize(p *tfjson.Plan) PlanSummary {
	var s PlanSummary
	for _, rc := range p.ResourceChanges {
		if rc == nil || rc.Change == nil {
			continue
		}
		a := rc.Change.Actions
		switch {
		case a.NoOp(), a.Read():
			continue
		case a.Create():
			s.Add++
		case a.Update():
			s.Change++
		case a.Delete():
			s.Destroy++
		case a.Replace():
			s.Add++
			s.Destroy++
		case a.Forget():
			// Leaves state without destroying anything; listed but, like terraform, not counted.
		}
		s.Resources = append(s.Resources, ResourceChange{Address: rc.Address, Type: rc.Type, Name: rc.Name, Actions: actionNames(a),
			Attributes: attributeChanges(rc.Change)})
	}
	sort.Slice(s.Resources, func(i, j int) bool { return s.Resources[i].Address < s.Resources[j].Address })
	s.NoChanges = len(s.Resources) == 0 && !outputsChange(p)
	return s
}

func actionNames(a tfjson.Actions) []string {
	out := make([]string, 0, len(a))
	for _, act := range a {
		out = append(out, string(act))
	}
	return out
}

// outputsChange reports output-only changes, which still make a plan worth applying.
func outputsChange(p *tfjson.Plan) bool {
	for _, oc := range p.OutputChanges {
		if oc != nil && !slices.Equal(oc.Actions, tfjson.Actions{tfjson.ActionNoop}) {
			return true
		}
	}
	return false
}

func bytesSHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func fileSHA256(file string) (string, error) {
	f, err := openOwn(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", notOwn(file)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
