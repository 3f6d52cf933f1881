package contract

import (
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// What runs is what slipway rendered: the SHA-256 of every file slipway rendered into an
// instance's directory is recorded at the merge that produced it, and checked against the
// files on main before terraform or a hook runs from them.
const (
	// VerifyRender is the step that checks the instance's files at the revision against the record.
	VerifyRender = "verify-render"
	// AdoptCommit records a config the tenant pushed to main as the instance's (Grove's local create).
	AdoptCommit = "adopt-commit"
	// ActRecordRender hashes the files of a merge slipway made; ActVerifyRender checks a revision.
	ActRecordRender = "RecordRender"
	ActVerifyRender = "VerifyRender"
	// ErrRenderChanged fails the step: the files on main are not the ones slipway rendered.
	ErrRenderChanged = "RenderChanged"
	// LeftoverRender names the files changed on main since slipway's merge and the commits.
	LeftoverRender = "changed-render"
)

// Render is what slipway rendered into an instance's directory: the path of each file
// (relative to the directory) and the SHA-256 of its bytes, hex.
type Render struct {
	// Revision is the merge that put these files on main (main's head when it held them already).
	Revision string            `json:"revision"`
	Files    map[string]string `json:"files"`
}

// RecordRenderInput asks for the hashes of the files slipway committed: Commit is the MR's
// head (slipway's own commit, which nobody else can move: the merge pinned it), Revision the merge.
// Adopt says Commit is a tenant's push (a local create): only its instance.yaml, which the
// pipeline validated, is recorded; any other file there is the tenant's, not slipway's rendering.
type RecordRenderInput struct {
	Ref      Ref    `json:"ref"`
	Commit   string `json:"commit"`
	Revision string `json:"revision"`
	Adopt    bool   `json:"adopt,omitempty"`
}

// VerifyRenderInput asks whether the instance's files at Revision are the recorded ones.
type VerifyRenderInput struct {
	Ref      Ref    `json:"ref"`
	Revision string `json:"revision"`
	Render   Render `json:"render"`
}

// RenderChange is how the files at a revision differ from what slipway rendered, and the
// commits since the recorded merge that changed the directory; it is the details of ErrRenderChanged.
type RenderChange struct {
	Dir      string         `json:"dir"`
	Since    string         `json:"since"` // the recorded merge
	Revision string         `json:"revision"`
	Changed  []string       `json:"changed,omitempty"`
	Added    []string       `json:"added,omitempty"`
	Removed  []string       `json:"removed,omitempty"`
	Commits  []forge.Commit `json:"commits,omitempty"`
	// Diff is the change as a unified diff from the files slipway rendered, at most MaxRenderDiff
	// bytes: what an operator reviews before --accept-render, and what the decision records.
	Diff string `json:"diff,omitempty"`
}

// MaxRenderDiff bounds RenderChange.Diff; a longer diff is cut, saying where to read the rest.
const MaxRenderDiff = 8 << 10

// Files lists every file that differs, sorted within each kind.
func (c RenderChange) Files() []string {
	return append(append(append([]string{}, c.Changed...), c.Added...), c.Removed...)
}

// Message says what changed, where and by which commits.
func (c RenderChange) Message() string {
	var parts []string
	for _, k := range []struct {
		verb  string
		files []string
	}{{"changed", c.Changed}, {"added", c.Added}, {"removed", c.Removed}} {
		if len(k.files) > 0 {
			parts = append(parts, k.verb+" "+strings.Join(k.files, ", "))
		}
	}
	return fmt.Sprintf("%s at %s is not what slipway rendered at merge %s: %s; %s", c.Dir, shortSHA(c.Revision), shortSHA(c.Since),
		strings.Join(parts, "; "), c.By())
}

// By names the commits that made the change, or the range to look in when the forge cannot list them.
func (c RenderChange) By() string {
	if len(c.Commits) == 0 {
		return fmt.Sprintf("see git log %s..%s -- %s", shortSHA(c.Since), shortSHA(c.Revision), c.Dir)
	}
	var by []string
	for _, cm := range c.Commits {
		by = append(by, fmt.Sprintf("%s (%s: %s)", shortSHA(cm.SHA), cm.Author, cm.Subject))
	}
	return "by commit " + strings.Join(by, ", ")
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
