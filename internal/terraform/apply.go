package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Apply applies exactly the plan file p, after checking its SHA-256. It is idempotent by
// plan hash: once a plan applied, a marker <dir>/applied/<sha256> makes later calls no-ops
// that return alreadyApplied=true. If the process dies between terraform's success and the
// marker, the retry gets a *StalePlanError and the caller re-plans (which then finds no changes).
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
	dir := r.Dir(ws)
	if filepath.Dir(p.File) != dir || !strings.HasSuffix(p.File, planExt) {
		return false, &InvalidInputError{Field: "plan.File", Value: p.File, Reason: "must be a " + planExt + " file directly in " + dir}
	}
	marker := filepath.Join(dir, appliedDir, p.SHA256)
	if _, err := os.Stat(marker); err == nil {
		return true, nil
	}
	sum, err := fileSHA256(p.File)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, &PlanMissingError{Workspace: ws, File: p.File, Reason: "file does not exist"}
	case err != nil:
		return false, &PlanMissingError{Workspace: ws, File: p.File, Reason: err.Error()}
	case sum != p.SHA256:
		return false, &PlanMissingError{Workspace: ws, File: p.File, Reason: fmt.Sprintf("sha256 is %s, expected %s", sum, p.SHA256)}
	}
	c, err := r.open(ws, "apply")
	if err != nil {
		return false, err
	}
	err = c.recorded(ctx, func() error {
		err := c.tf.Apply(ctx, tfexec.DirOrPlan(p.File), tfexec.LockTimeout("0s"))
		if err != nil && strings.Contains(c.stderr.String(), "Saved plan is stale") {
			return &StalePlanError{Workspace: ws, File: p.File}
		}
		return c.fail(err)
	})
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(marker), dirPerm); err != nil {
		return false, &CommandError{Command: "apply", Workspace: ws, Err: fmt.Errorf("plan applied but marker not written: %w", err)}
	}
	if err := os.WriteFile(marker, []byte(filepath.Base(p.File)+"\n"), filePerm); err != nil {
		return false, &CommandError{Command: "apply", Workspace: ws, Err: fmt.Errorf("plan applied but marker not written: %w", err)}
	}
	return false, nil
}
