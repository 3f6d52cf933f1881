package gitlab

import (
	"context"
	"net/http"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Close closes an open MR without merging it (state_event=close) and deletes its source
// branch. A closed MR is returned closed (its branch deleted if still there); a merged one is a
// *forge.MergedError. Get still finds it afterwards, as closed.
func (f *Forge) Close(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return mr, nil
	}
	cur, err := f.closeTarget(ctx, mr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if cur.State == forge.StateOpen {
		if cur, err = f.closeMR(ctx, cur); err != nil {
			return forge.MergeRequest{}, err
		}
	}
	if err := forge.CheckClosed(cur, "gitlab: close merge request !"+cur.ID); err != nil {
		return forge.MergeRequest{}, err
	}
	if err := f.deleteBranch(ctx, cur); err != nil {
		return forge.MergeRequest{}, err
	}
	return cur, nil
}

// closeTarget reads mr by IID, so a late retry cannot close a newer MR of the same branch;
// by branch (as Get finds it) when the ID is not an IID.
func (f *Forge) closeTarget(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	iid, err := strconv.ParseInt(mr.ID, 10, 64)
	if err != nil || iid < 1 {
		if err := forge.CheckBranch(mr.Branch, f.cfg.base); err != nil {
			return forge.MergeRequest{}, err
		}
		cur, ok, err := f.Get(ctx, mr.Branch)
		if err == nil && !ok {
			err = &forge.NotFoundError{What: "merge request for branch " + mr.Branch + " in GitLab project " + f.project}
		}
		return cur, err
	}
	m, resp, err := f.client.MergeRequests.GetMergeRequest(f.project, iid, nil, gl.WithContext(ctx))
	if err != nil {
		return forge.MergeRequest{}, f.translate("get merge request !"+mr.ID, "merge request !"+mr.ID, resp, err)
	}
	if mr.Branch != "" && m.SourceBranch != mr.Branch {
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: mr.ID, Problem: "is the merge request of " + m.SourceBranch + ", not " + mr.Branch}
	}
	return f.toMR(ctx, &m.BasicMergeRequest)
}

// closeMR sends state_event=close and returns the MR as GitLab answers. GitLab leaves a merged
// MR merged and says 200; a refusal (405/409/422) is read back, as the MR may have merged meanwhile.
func (f *Forge) closeMR(ctx context.Context, cur forge.MergeRequest) (forge.MergeRequest, error) {
	iid, _ := strconv.ParseInt(cur.ID, 10, 64) // cur came from GitLab: its ID is an IID
	m, resp, err := f.client.MergeRequests.UpdateMergeRequest(f.project, iid,
		&gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")}, gl.WithContext(ctx))
	switch code := status(resp); {
	case err == nil:
		return f.toMR(ctx, &m.BasicMergeRequest)
	case code == http.StatusMethodNotAllowed || code == http.StatusConflict || code == http.StatusUnprocessableEntity:
		now, getErr := f.closeTarget(ctx, forge.MergeRequest{ID: cur.ID})
		if getErr == nil && now.State != forge.StateOpen {
			return now, nil
		}
	}
	return forge.MergeRequest{}, f.translate("close merge request !"+cur.ID, "merge request !"+cur.ID, resp, err)
}

// deleteBranch deletes a closed MR's source branch while it still holds the MR's head: a
// branch that moved on belongs to a newer MR opened on the same name. Gone already is fine.
func (f *Forge) deleteBranch(ctx context.Context, mr forge.MergeRequest) error {
	tip, ok, err := f.branchHead(ctx, mr.Branch)
	if err != nil || !ok || tip != mr.HeadSHA {
		return err
	}
	resp, err := f.client.Branches.DeleteBranch(f.project, mr.Branch, gl.WithContext(ctx))
	if err != nil && status(resp) != http.StatusNotFound { // 404: a racing Close deleted it first
		return f.translate("delete branch "+mr.Branch, "branch "+mr.Branch, resp, err)
	}
	return nil
}
