package gitea

import (
	"context"
	"crypto/sha1" //nolint:gosec // git's object naming, not security
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Open opens the PR for c.Branch, or returns the existing one for that branch (open or
// merged) unchanged. A closed PR keeps its branch name: c opens anew on a later candidate,
// because Gitea's lookup by head cannot tell two PRs of one branch name apart.
func (f *Forge) Open(ctx context.Context, c forge.Change) (forge.MergeRequest, error) {
	if err := forge.ValidateChange(c, f.cfg.base); err != nil {
		return forge.MergeRequest{}, err
	}
	prev, ok, err := f.Get(ctx, c.Branch)
	if err != nil || ok && prev.State != forge.StateClosed {
		return prev, err
	}
	names := branchCandidates(c.Branch)
	if ok {
		names = names[slices.Index(names, prev.Branch)+1:]
	}
	branch, state, err := f.usableBranch(ctx, c.Branch, names)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if state == branchFree {
		base, ops, err := f.plan(ctx, c)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		if len(ops) == 0 {
			return forge.MergeRequest{NoChanges: true, BaseSHA: base}, nil
		}
		if err := f.commit(ctx, c, branch, ops); err != nil {
			return forge.MergeRequest{}, err
		}
	} // else a previous attempt committed but did not open the PR: the branch is its commit.
	cl := f.client(ctx)
	pr, resp, err := cl.CreatePullRequest(f.owner, f.repo, sdk.CreatePullRequestOption{
		Head: branch, Base: f.cfg.base, Title: c.Title, Body: c.Body})
	if err != nil {
		if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusConflict {
			// Another attempt opened it between our Get and now: return that one.
			if mr, ok, gerr := f.Get(ctx, c.Branch); gerr == nil && ok && mr.State != forge.StateClosed {
				return mr, nil
			}
		}
		return forge.MergeRequest{}, classify("create pull request for "+branch, f.repoWhat(), resp, err)
	}
	return f.toMR(ctx, pr)
}

// usableBranch is the first of names (branch's candidates not taken by a closed PR) that is
// not orphaned, and whether a previous attempt already committed there.
func (f *Forge) usableBranch(ctx context.Context, branch string, names []string) (string, branchState, error) {
	if len(names) == 0 {
		return "", 0, &forge.InvalidError{Field: "branch", Value: branch,
			Problem: "has a closed pull request on every name it may use (" + strings.Join(branchCandidates(branch), ", ") + ")"}
	}
	for _, b := range names {
		state, err := f.branchState(ctx, b)
		if err != nil || state != branchOrphaned {
			return b, state, err
		}
	}
	return "", 0, &APIError{Op: "open pull request", Status: http.StatusConflict,
		Err: fmt.Errorf("branches %v all exist in git but not in Gitea's database (pushes cut off by lost requests): "+
			"delete them with git push --delete, then retry", names)}
}

// plan compares c with the base head and returns the file operations that make Dir equal
// to Files: create, update (with the old blob SHA) and delete.
func (f *Forge) plan(ctx context.Context, c forge.Change) (string, []*sdk.ChangeFileOperation, error) {
	base, err := f.Head(ctx)
	if err != nil {
		return "", nil, err
	}
	current, err := f.listBlobs(ctx, base, c.Dir)
	if err != nil {
		return "", nil, err
	}
	var ops []*sdk.ChangeFileOperation
	for rel, data := range c.Files {
		p := path.Join(c.Dir, rel)
		old, exists := current[rel]
		switch {
		case !exists:
			ops = append(ops, &sdk.ChangeFileOperation{Operation: "create", Path: p, Content: base64.StdEncoding.EncodeToString(data)})
		case old != blobSHA(data, len(old)):
			ops = append(ops, &sdk.ChangeFileOperation{Operation: "update", Path: p, SHA: old, Content: base64.StdEncoding.EncodeToString(data)})
		}
	}
	for rel, old := range current {
		if _, keep := c.Files[rel]; !keep {
			ops = append(ops, &sdk.ChangeFileOperation{Operation: "delete", Path: path.Join(c.Dir, rel), SHA: old})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Path < ops[j].Path })
	return base, ops, nil
}

// commit makes ONE commit with every operation on a new branch from the base.
func (f *Forge) commit(ctx context.Context, c forge.Change, branch string, ops []*sdk.ChangeFileOperation) error {
	msg := c.Title
	if c.Body != "" {
		msg += "\n\n" + c.Body
	}
	_, resp, err := f.client(ctx).ChangeFiles(f.owner, f.repo, sdk.ChangeFilesOptions{
		Files: ops, Message: msg, Branch: f.cfg.base, NewBranch: branch})
	if err != nil {
		return classify("commit change on "+branch, f.repoWhat(), resp, err)
	}
	return nil
}

// blobSHA is git's object name of a blob, in the hash the repository uses (by name length).
func blobSHA(data []byte, nameLen int) string {
	header := fmt.Sprintf("blob %d\x00", len(data))
	if nameLen == 64 {
		h := sha256.New()
		h.Write([]byte(header))
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New() //nolint:gosec // git's object naming
	h.Write([]byte(header))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
