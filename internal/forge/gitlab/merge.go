package gitlab

import (
	"context"
	"net/http"
	"sort"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Merge merges an open MR with a merge commit, pinned to the head SHA the caller saw
// (mr.HeadSHA); an MR already merged is returned unchanged.
func (f *Forge) Merge(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: mr.Branch, Problem: "has no changes; there is nothing to merge"}
	}
	cur, ok, err := f.Get(ctx, mr.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if !ok {
		return forge.MergeRequest{}, &forge.NotFoundError{What: "merge request for branch " + mr.Branch + " in GitLab project " + f.project}
	}
	switch cur.State {
	case forge.StateMerged:
		return cur, nil
	case forge.StateClosed:
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: cur.URL, Problem: "is closed on GitLab; reopen it or open a new change"}
	}
	want := mr.HeadSHA
	if want == "" {
		want = cur.HeadSHA
	}
	iid, err := strconv.ParseInt(cur.ID, 10, 64)
	if err != nil {
		return forge.MergeRequest{}, &APIError{Op: "merge " + cur.Branch, Message: "merge request IID " + cur.ID + " is not a number"}
	}
	done, resp, err := f.client.MergeRequests.AcceptMergeRequest(f.project, iid, &gl.AcceptMergeRequestOptions{
		SHA: gl.Ptr(want), ShouldRemoveSourceBranch: gl.Ptr(false), Squash: gl.Ptr(false),
	}, gl.WithContext(ctx))
	switch code := status(resp); {
	case err == nil:
		if done.State == "merged" && done.MergeCommitSHA != "" {
			return f.toMR(ctx, &done.BasicMergeRequest)
		}
		return f.mergedNow(ctx, cur, &MergePendingError{Branch: cur.Branch, State: done.State})
	case code == http.StatusConflict:
		now, _, getErr := f.Get(ctx, cur.Branch)
		if getErr != nil {
			return forge.MergeRequest{}, getErr
		}
		return forge.MergeRequest{}, &forge.HeadChangedError{Branch: cur.Branch, Want: want, Got: now.HeadSHA}
	case code == http.StatusMethodNotAllowed || code == http.StatusNotAcceptable || code == http.StatusUnprocessableEntity:
		// Not mergeable; but a racing merge of the same MR also lands here.
		if now, ok, getErr := f.Get(ctx, cur.Branch); getErr == nil && ok && now.State == forge.StateMerged {
			return now, nil
		}
		paths, pathErr := f.conflictPaths(ctx, cur.HeadSHA)
		if pathErr != nil {
			return forge.MergeRequest{}, pathErr
		}
		return forge.MergeRequest{}, &forge.ConflictError{Branch: cur.Branch, Paths: paths}
	default:
		return forge.MergeRequest{}, f.translate("merge "+cur.Branch, "merge request !"+cur.ID, resp, err)
	}
}

// mergedNow re-reads an MR whose merge was accepted; still unmerged gives pending (retryable).
func (f *Forge) mergedNow(ctx context.Context, cur forge.MergeRequest, pending error) (forge.MergeRequest, error) {
	now, ok, err := f.Get(ctx, cur.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if ok && now.State == forge.StateMerged && now.MergeSHA != "" {
		return now, nil
	}
	return forge.MergeRequest{}, pending
}

// conflictPaths lists the paths both the base and head changed since their merge base:
// GitLab's merge API says only "cannot be merged", so compare both sides (straight=false
// diffs from the merge base).
func (f *Forge) conflictPaths(ctx context.Context, head string) ([]string, error) {
	base, err := f.Head(ctx)
	if err != nil {
		return nil, err
	}
	changed := func(from, to string) (map[string]bool, error) {
		cmp, resp, err := f.client.Repositories.Compare(f.project, &gl.CompareOptions{
			From: gl.Ptr(from), To: gl.Ptr(to), Straight: gl.Ptr(false)}, gl.WithContext(ctx))
		if err != nil {
			return nil, f.translate("compare "+from+"..."+to, "commit "+from+" or "+to, resp, err)
		}
		out := map[string]bool{}
		for _, d := range cmp.Diffs {
			out[d.OldPath], out[d.NewPath] = true, true
		}
		return out, nil
	}
	onBase, err := changed(head, base)
	if err != nil {
		return nil, err
	}
	onHead, err := changed(base, head)
	if err != nil {
		return nil, err
	}
	paths := []string{}
	for p := range onHead {
		if p != "" && onBase[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}
