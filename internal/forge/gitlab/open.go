package gitlab

import (
	"context"
	"encoding/base64"
	"net/http"
	"sort"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Open returns the MR for c.Branch if one exists (open or merged, unchanged); otherwise it
// commits the replacement of c.Dir as ONE commit on a new branch from the base head and
// opens the MR. A closed MR does not count: c opens a new one. A change equal to the base
// creates nothing.
func (f *Forge) Open(ctx context.Context, c forge.Change) (forge.MergeRequest, error) {
	if err := forge.ValidateChange(c, f.cfg.base); err != nil {
		return forge.MergeRequest{}, err
	}
	prev, ok, err := f.Get(ctx, c.Branch)
	if err != nil || ok && prev.State != forge.StateClosed {
		return prev, err
	}
	tip, exists, err := f.branchHead(ctx, c.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if exists && ok && tip == prev.HeadSHA {
		// The closed MR's own branch (closed by hand, or a Close cut short): not a commit to reuse.
		if err := f.deleteBranch(ctx, prev); err != nil {
			return forge.MergeRequest{}, err
		}
		exists = false
	}
	if !exists { // else an earlier attempt committed but did not open the MR: reuse its commit
		base, err := f.Head(ctx)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		actions, err := f.actions(ctx, base, c)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		if len(actions) == 0 {
			return forge.MergeRequest{Branch: c.Branch, Title: c.Title, BaseSHA: base, NoChanges: true}, nil
		}
		msg := c.Title
		if body := strings.TrimRight(c.Body, "\n"); body != "" {
			msg += "\n\n" + body
		}
		_, resp, err := f.client.Commits.CreateCommit(f.project, &gl.CreateCommitOptions{
			Branch: gl.Ptr(c.Branch), StartSHA: gl.Ptr(base), CommitMessage: gl.Ptr(msg), Actions: actions,
		}, gl.WithContext(ctx))
		if err != nil && status(resp) != http.StatusBadRequest {
			return forge.MergeRequest{}, f.translate("commit to "+c.Branch, "base commit "+base, resp, err)
		}
		if err != nil { // 400 may be a racing Open that created the branch first
			if _, ok, getErr := f.branchHead(ctx, c.Branch); getErr != nil || !ok {
				return forge.MergeRequest{}, f.translate("commit to "+c.Branch, "base commit "+base, resp, err)
			}
		}
	}
	created, resp, err := f.client.MergeRequests.CreateMergeRequest(f.project, &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr(c.Branch), TargetBranch: gl.Ptr(f.cfg.base), Title: gl.Ptr(c.Title),
		Description: gl.Ptr(c.Body), RemoveSourceBranch: gl.Ptr(false), // the branch is the idempotency record
	}, gl.WithContext(ctx))
	if err != nil {
		if status(resp) == http.StatusConflict { // a racing Open opened it first
			if mr, ok, getErr := f.Get(ctx, c.Branch); getErr == nil && ok && mr.State != forge.StateClosed {
				return mr, nil
			}
		}
		return forge.MergeRequest{}, f.translate("open merge request for "+c.Branch, "branch "+c.Branch, resp, err)
	}
	return f.toMR(ctx, &created.BasicMergeRequest)
}

// branchHead returns a branch's commit; ok is false when the branch does not exist.
func (f *Forge) branchHead(ctx context.Context, branch string) (string, bool, error) {
	b, resp, err := f.client.Branches.GetBranch(f.project, branch, gl.WithContext(ctx))
	if status(resp) == http.StatusNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, f.translate("get branch "+branch, "branch "+branch, resp, err)
	}
	if b.Commit == nil {
		return "", false, &APIError{Op: "get branch " + branch, Status: status(resp), Message: "response has no commit"}
	}
	return b.Commit.ID, true, nil
}

// actions turns c into commit actions against base: deletes first (a file may become a
// directory), then updates and creates; unchanged files are left out.
func (f *Forge) actions(ctx context.Context, base string, c forge.Change) ([]*gl.CommitActionOptions, error) {
	existing, err := f.tree(ctx, base, c.Dir)
	if err != nil {
		return nil, err
	}
	var deletes, writes []*gl.CommitActionOptions
	for p := range existing {
		if _, keep := c.Files[strings.TrimPrefix(p, c.Dir+"/")]; !keep {
			deletes = append(deletes, &gl.CommitActionOptions{Action: gl.Ptr(gl.FileDelete), FilePath: gl.Ptr(p)})
		}
	}
	for name, content := range c.Files {
		p := c.Dir + "/" + name
		action := gl.FileCreate
		if id, ok := existing[p]; ok {
			if id == blobID(content) {
				continue
			}
			action = gl.FileUpdate
		}
		writes = append(writes, &gl.CommitActionOptions{Action: gl.Ptr(action), FilePath: gl.Ptr(p),
			Encoding: gl.Ptr("base64"), Content: gl.Ptr(base64.StdEncoding.EncodeToString(content))})
	}
	byPath := func(a []*gl.CommitActionOptions) {
		sort.Slice(a, func(i, j int) bool { return *a[i].FilePath < *a[j].FilePath })
	}
	byPath(deletes)
	byPath(writes)
	return append(deletes, writes...), nil
}
