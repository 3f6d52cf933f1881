package github

import (
	"context"
	"strconv"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// toMR describes a pull request. BaseSHA is the parent of the PR's single commit (the base
// head it was opened on), because GitHub's base.sha moves and the MR must read the same forever.
func (f *Forge) toMR(ctx context.Context, pr *gh.PullRequest) (forge.MergeRequest, error) {
	head := pr.GetHead().GetSHA()
	parent, err := f.parent(ctx, head)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	mr := forge.MergeRequest{
		ID:      strconv.Itoa(pr.GetNumber()),
		Branch:  pr.GetHead().GetRef(),
		Title:   pr.GetTitle(),
		State:   forge.StateOpen,
		HeadSHA: head,
		BaseSHA: parent,
		URL:     pr.GetHTMLURL(),
	}
	switch {
	case pr.GetMerged() || pr.MergedAt != nil:
		// merge_commit_sha of an open PR is GitHub's test merge, so read it only once merged.
		mr.State, mr.MergeSHA = forge.StateMerged, pr.GetMergeCommitSHA()
	case pr.GetState() == "closed":
		mr.State = forge.StateClosed
	}
	return mr, nil
}

// parent returns the first parent of commit sha.
func (f *Forge) parent(ctx context.Context, sha string) (string, error) {
	if p, ok := f.parents.Load(sha); ok {
		return p.(string), nil
	}
	c, _, err := f.client.Git.GetCommit(ctx, f.owner, f.repo, sha)
	if err != nil {
		return "", f.classify("get commit "+sha, err)
	}
	p := ""
	if len(c.Parents) > 0 {
		p = c.Parents[0].GetSHA()
	}
	f.parents.Store(sha, p)
	return p, nil
}

// pullsFor lists every pull request (any state) whose head is branch of this repository.
func (f *Forge) pullsFor(ctx context.Context, branch string) ([]*gh.PullRequest, error) {
	opts := &gh.PullRequestListOptions{State: "all", Head: f.owner + ":" + branch, Base: f.base,
		Sort: "created", Direction: "asc", ListOptions: gh.ListOptions{PerPage: f.pageSize}}
	return f.listPulls(ctx, "list pull requests of "+branch, opts)
}

// listPulls follows the Link pagination to the last page.
func (f *Forge) listPulls(ctx context.Context, op string, opts *gh.PullRequestListOptions) ([]*gh.PullRequest, error) {
	var all []*gh.PullRequest
	for {
		page, resp, err := f.client.PullRequests.List(ctx, f.owner, f.repo, opts)
		if err != nil {
			return nil, f.classify(op, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}
