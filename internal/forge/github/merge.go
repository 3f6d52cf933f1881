package github

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Merge merges mr's pull request with a merge commit, only if its head is still mr.HeadSHA.
// An already merged PR is returned as it is.
func (f *Forge) Merge(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	pr, err := f.pullOf(ctx, mr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if pr.GetMerged() || pr.MergedAt != nil {
		return f.toMR(ctx, pr)
	}
	if pr.GetState() == "closed" {
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: mr.ID, Problem: "pull request is closed without being merged"}
	}
	want := mr.HeadSHA
	if want == "" {
		want = pr.GetHead().GetSHA()
	}
	n, branch := pr.GetNumber(), pr.GetHead().GetRef()
	res, _, err := f.client.PullRequests.Merge(ctx, f.owner, f.repo, n, "", &gh.PullRequestOptions{SHA: want, MergeMethod: "merge"})
	switch statusOf(err) {
	case 0:
		if err != nil {
			return forge.MergeRequest{}, f.classify("merge pull request #"+strconv.Itoa(n), err)
		}
	case http.StatusMethodNotAllowed:
		return f.notMerged(ctx, n, branch, err)
	case http.StatusConflict:
		got := ""
		if now, _, getErr := f.client.PullRequests.Get(ctx, f.owner, f.repo, n); getErr == nil {
			got = now.GetHead().GetSHA()
		}
		return forge.MergeRequest{}, &forge.HeadChangedError{Branch: branch, Want: want, Got: got}
	default:
		return forge.MergeRequest{}, f.classify("merge pull request #"+strconv.Itoa(n), err)
	}
	merged, _, err := f.client.PullRequests.Get(ctx, f.owner, f.repo, n)
	if err != nil {
		return forge.MergeRequest{}, f.classify("get pull request #"+strconv.Itoa(n), err)
	}
	out, err := f.toMR(ctx, merged)
	if err == nil && out.State != forge.StateMerged {
		// GitHub may not show the merge on the PR yet; the merge result is authoritative.
		out.State, out.MergeSHA = forge.StateMerged, res.GetSHA()
	}
	return out, err
}

// pullOf fetches mr's pull request by number, or by branch when the ID is not a number.
func (f *Forge) pullOf(ctx context.Context, mr forge.MergeRequest) (*gh.PullRequest, error) {
	n, convErr := strconv.Atoi(mr.ID)
	if convErr != nil || n < 1 {
		if err := forge.CheckBranch(mr.Branch, f.base); err != nil {
			return nil, err
		}
		pr, err := f.findPull(ctx, mr.Branch)
		if err == nil && pr == nil {
			err = &forge.NotFoundError{What: "pull request for branch " + mr.Branch + " in github repository " + f.fullName()}
		}
		return pr, err
	}
	pr, _, err := f.client.PullRequests.Get(ctx, f.owner, f.repo, n)
	if statusOf(err) == http.StatusNotFound {
		return nil, &forge.NotFoundError{What: "pull request #" + mr.ID + " in github repository " + f.fullName()}
	}
	if err != nil {
		return nil, f.classify("get pull request #"+mr.ID, err)
	}
	if mr.Branch != "" && pr.GetHead().GetRef() != mr.Branch {
		return nil, &forge.InvalidError{Field: "mr", Value: mr.ID, Problem: "is the pull request of " + pr.GetHead().GetRef() + ", not " + mr.Branch}
	}
	return pr, nil
}

// notMerged explains a 405: merged meanwhile (success), a content conflict, or a passing state.
func (f *Forge) notMerged(ctx context.Context, n int, branch string, mergeErr error) (forge.MergeRequest, error) {
	pr, _, err := f.client.PullRequests.Get(ctx, f.owner, f.repo, n)
	if err != nil {
		return forge.MergeRequest{}, f.classify("get pull request #"+strconv.Itoa(n), err)
	}
	if pr.GetMerged() || pr.MergedAt != nil {
		return f.toMR(ctx, pr)
	}
	if pr.Mergeable != nil && !pr.GetMergeable() {
		return forge.MergeRequest{}, &forge.ConflictError{Branch: branch, Paths: f.conflictPaths(ctx, pr.GetHead().GetSHA())}
	}
	msg := "not mergeable"
	var er *gh.ErrorResponse
	if errors.As(mergeErr, &er) && er.Message != "" {
		msg = er.Message
	}
	return forge.MergeRequest{}, &NotMergeableError{Number: n, Message: msg}
}

// conflictPaths lists the paths both the base and head changed since their merge base.
// Best effort: GitHub does not name conflicting files, so an empty list is possible.
func (f *Forge) conflictPaths(ctx context.Context, head string) []string {
	changed := func(from, to string) map[string]bool {
		cmp, _, err := f.client.Repositories.CompareCommits(ctx, f.owner, f.repo, from, to, nil)
		if err != nil {
			return nil
		}
		out := map[string]bool{}
		for _, file := range cmp.Files {
			out[file.GetFilename()] = true
		}
		return out
	}
	onHead, onBase := changed(f.base, head), changed(head, f.base)
	var paths []string
	for p := range onHead {
		if onBase[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}
