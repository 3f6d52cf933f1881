package terraform

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Apply applies exactly the plan p, after checking its SHA-256 against the plan store's
// record. The plan may have been made on another worker: when this host lacks the file, the
// working directory and plan are restored from the store. It is idempotent by plan hash: once
// a plan applied, the store's marker makes later calls no-ops that return alreadyApplied=true.
// If the process dies between terraform's success and the marker, the retry gets a
// *StalePlanError and the caller re-plans (which then finds no changes).
func (r *Runner) Apply(ctx context.Context, ws Workspace, p *Plan) (alreadyApplied bool, err error) {
	if err := ws.validate(); err != nil {
		return false, err
	}
	if p == nil {
		return false, &InvalidInputError{Field: "plan", Value: "<nil>", Reason: "must not be nil"}
	}
	if !sha256RE.MatchString(p.SHA256) {
		return false, &InvalidInputError{Field: "plan.SHA256", Value: p.SHA256, Reason: "must be 64 lowercase hex digits"}
	}
	name, err := r.planName(ws, p.File)
	if err != nil {
		return false, err
	}
	done, err := r.plans.Applied(ctx, ws, p.SHA256)
	if err != nil {
		return false, storeErr(ws, "apply", err)
	}
	if done {
		// The apply ran on another host, or before this one lost its disk: the caller reads
		// the state next, which needs an initialised working directory here.
		if !r.Initialized(ws) {
			if err := r.restoreDir(ctx, ws, name); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	file := filepath.Join(r.Dir(ws), name+planExt)
	if sum, err := fileSHA256(file); err != nil || sum != p.SHA256 || !r.Initialized(ws) {
		if err := r.restorePlan(ctx, ws, name, p.SHA256); err != nil {
			return false, err
		}
	}
	c, err := r.open(ctx, ws, "apply")
	if err != nil {
		return false, err
	}
	defer c.close()
	err = c.recorded(ctx, func() error {
		tctx, cancel := c.interruptible(ctx)
		defer cancel()
		err := c.tf.Apply(tctx, tfexec.DirOrPlan(file), tfexec.LockTimeout("0s"))
		if err != nil && strings.Contains(c.stderr.String(), "Saved plan is stale") {
			return &StalePlanError{Workspace: ws, File: p.File}
		}
		return c.fail(err)
	})
	if err != nil {
		return false, err
	}
	if err := r.plans.MarkApplied(ctx, ws, p.SHA256, name); err != nil {
		return false, storeErr(ws, "apply (plan applied, marker not written)", err)
	}
	return false, nil
}

// planName is the stored name of the plan file: a bare NAME.tfplan, or a path in this
// workspace's working directory on any worker (histories before the plan store hold those).
func (r *Runner) planName(ws Workspace, file string) (string, error) {
	dir := filepath.Dir(file)
	name, ok := strings.CutSuffix(filepath.Base(file), planExt)
	if !ok || !planNameRE.MatchString(name) ||
		(dir != "." && !strings.HasSuffix(dir, string(filepath.Separator)+filepath.Join("work", ws.Tenant, ws.Name))) {
		return "", &InvalidInputError{Field: "plan.File", Value: file,
			Reason: "must be NAME" + planExt + ", or a path to it in the working directory of " + ws.String()}
	}
	return name, nil
}

// restorePlan writes the stored plan and the configuration it was made from into this
// host's working directory, initialising it when this host never has.
func (r *Runner) restorePlan(ctx context.Context, ws Workspace, name, want string) error {
	saved, err := r.plans.LoadPlan(ctx, ws, name)
	var none *PlanNotStoredError
	switch {
	case errors.As(err, &none):
		return &PlanMissingError{Workspace: ws, File: name + planExt, Reason: "it is not in the plan store"}
	case err != nil:
		return storeErr(ws, "apply", err)
	case saved.SHA256 != want:
		return &PlanMissingError{Workspace: ws, File: name + planExt,
			Reason: fmt.Sprintf("the stored plan's sha256 is %s, expected %s", saved.SHA256, want)}
	}
	if sum := bytesSHA256(saved.Plan); sum != want {
		return &PlanMissingError{Workspace: ws, File: name + planExt,
			Reason: fmt.Sprintf("the stored plan's bytes hash to %s, expected %s", sum, want)}
	}
	if err := r.writeConfig(ctx, ws, saved); err != nil {
		return err
	}
	if err := writeIfChanged(filepath.Join(r.Dir(ws), name+planExt), saved.Plan); err != nil {
		return &CommandError{Command: "apply", Workspace: ws, Err: err}
	}
	return nil
}

// restoreDir makes this host's working directory from the configuration stored with plan
// name, whichever plan of that name is stored now: reading state needs only the backend and
// providers, which every plan of a workspace shares.
func (r *Runner) restoreDir(ctx context.Context, ws Workspace, name string) error {
	saved, err := r.plans.LoadPlan(ctx, ws, name)
	var none *PlanNotStoredError
	switch {
	case errors.As(err, &none):
		return &PlanMissingError{Workspace: ws, File: name + planExt,
			Reason: "it was applied, but its configuration is not in the plan store to read the state with"}
	case err != nil:
		return storeErr(ws, "apply", err)
	}
	return r.writeConfig(ctx, ws, saved)
}

// writeConfig writes a stored plan's configuration and lock file into the working
// directory and initialises it when this host never has.
func (r *Runner) writeConfig(ctx context.Context, ws Workspace, saved SavedPlan) error {
	user := make(map[string][]byte, len(saved.Files))
	for path, data := range saved.Files {
		switch path {
		case StackFile:
			if ws.Stack == "" {
				ws.Stack = strings.TrimSpace(string(data))
			}
		case CredentialsFile:
			if ws.Credentials == nil {
				ws.Credentials = strings.Fields(string(data))
			}
		case EngineFile:
			// The plan's own engine, pinned to the version that made it: it is what can apply it.
			ws.Engine = strings.TrimSpace(string(data))
		case BackendFile:
		default:
			user[path] = data
		}
	}
	// The plan's lock file goes in with the files, so the init here enforces it.
	if err := r.Prepare(ctx, ws, user); err != nil {
		return err
	}
	if !r.Initialized(ws) {
		return r.Init(ctx, ws)
	}
	return nil
}

// storeErr wraps a plan store failure (unreachable, or a row the keyring cannot open).
func storeErr(ws Workspace, command string, err error) error {
	if err == nil {
		return nil
	}
	return &StoreError{Command: command, Workspace: ws, Err: err}
}
