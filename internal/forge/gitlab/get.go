package gitlab

import (
	"context"
	"sort"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get finds the MR whose source branch is branch (preferring open, then merged, then closed).
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := forge.CheckBranch(branch, f.cfg.base); err != nil {
		return forge.MergeRequest{}, false, err
	}
	found, err := f.listMRs(ctx, "list merge requests for "+branch, &gl.ListProjectMergeRequestsOptions{
		SourceBranch: gl.Ptr(branch), TargetBranch: gl.Ptr(f.cfg.base), State: gl.Ptr("all")})
	if err != nil || len(found) == 0 {
		return forge.MergeRequest{}, false, err
	}
	rank := map[string]int{"opened": 0, "merged": 1}
	sort.SliceStable(found, func(i, j int) bool {
		ri, okI := rank[found[i].State]
		rj, okJ := rank[found[j].State]
		if !okI {
			ri = 2
		}
		if !okJ {
			rj = 2
		}
		if ri != rj {
			return ri < rj
		}
		return found[i].IID > found[j].IID // the newest of equals
	})
	mr, err := f.toMR(ctx, found[0])
	return mr, err == nil, err
}

// listMRs lists merge requests, following every page.
func (f *Forge) listMRs(ctx context.Context, op string, opt *gl.ListProjectMergeRequestsOptions) ([]*gl.BasicMergeRequest, error) {
	opt.PerPage = 100
	opt.Page = 1
	var all []*gl.BasicMergeRequest
	for {
		page, resp, err := f.client.MergeRequests.ListProjectMergeRequests(f.project, opt, gl.WithContext(ctx))
		if err != nil {
			return nil, f.translate(op, "project", resp, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opt.Page = resp.NextPage
	}
}

// toMR converts a GitLab MR; BaseSHA is the parent of the MR's head commit (slipway's
// branches hold exactly one commit on top of the base they were opened from).
func (f *Forge) toMR(ctx context.Context, m *gl.BasicMergeRequest) (forge.MergeRequest, error) {
	mr := forge.MergeRequest{ID: strconv.FormatInt(m.IID, 10), Branch: m.SourceBranch, Title: m.Title,
		HeadSHA: m.SHA, URL: m.WebURL}
	switch m.State {
	case "opened", "locked":
		mr.State = forge.StateOpen
	case "merged":
		mr.State, mr.MergeSHA = forge.StateMerged, m.MergeCommitSHA
	default:
		mr.State = forge.StateClosed
	}
	if m.SHA != "" {
		base, err := f.parent(ctx, m.SHA)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		mr.BaseSHA = base
	}
	return mr, nil
}

// parent returns a commit's first parent, cached because commits are immutable.
func (f *Forge) parent(ctx context.Context, sha string) (string, error) {
	f.mu.Lock()
	p, ok := f.parents[sha]
	f.mu.Unlock()
	if ok {
		return p, nil
	}
	c, resp, err := f.client.Commits.GetCommit(f.project, sha, nil, gl.WithContext(ctx))
	if err != nil {
		return "", f.translate("get commit "+sha, "commit "+sha, resp, err)
	}
	if len(c.ParentIDs) > 0 {
		p = c.ParentIDs[0]
	}
	f.mu.Lock()
	f.parents[sha] = p
	f.mu.Unlock()
	return p, nil
}
