package gitea

import (
	"context"
	"fmt"
	"net/http"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// A worker lost in the middle of a commit cancels Gitea's request, and Gitea cancels its own
// push with it: git has already moved the branch, but the post-receive hook that records the
// branch in Gitea's database never runs. That branch can neither be pushed to nor opened as
// a PR, so a change whose branch is orphaned moves on to the next name of a fixed sequence:
// every retry walks the same names and finds the PR wherever it was opened. A change opened
// again after its PR was closed moves on the same way (close.go).
const branchNames = 4

// branchCandidates are the names a change's PR may be on: branch, branch-2, … branch-N.
func branchCandidates(branch string) []string {
	out := []string{branch}
	for i := 2; i <= branchNames; i++ {
		out = append(out, fmt.Sprintf("%s-%d", branch, i))
	}
	return out
}

// branchState says where a branch exists: in Gitea's database (usable), only in git
// (orphaned), or nowhere (free).
type branchState int

const (
	branchFree branchState = iota
	branchUsable
	branchOrphaned
)

func (f *Forge) branchState(ctx context.Context, branch string) (branchState, error) {
	cl := f.client(ctx)
	_, resp, err := cl.GetRepoBranch(f.owner, f.repo, branch)
	switch {
	case err == nil:
		return branchUsable, nil
	case resp == nil || resp.Response == nil || resp.StatusCode != http.StatusNotFound:
		return 0, classify("get branch "+branch, f.repoWhat(), resp, err)
	}
	refs, resp, err := cl.GetRepoRefs(f.owner, f.repo, "heads/"+branch)
	switch {
	case err == nil:
		for _, r := range refs {
			if r != nil && r.Ref == "refs/heads/"+branch {
				return branchOrphaned, nil
			}
		}
		return branchFree, nil // only longer names share the prefix
	case resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound:
		return branchFree, nil
	}
	return 0, classify("get ref heads/"+branch, f.repoWhat(), resp, err)
}

// mergeScan is how many of the base's newest commits are searched for a lost merge.
const mergeScan = 100

// mergeCommitOf finds the merge commit of head on the base branch, as git has it: a merge
// whose push was cut off by a lost request lands in git while Gitea's record of the PR stays
// open, and Gitea then answers every merge with 405 "try again later". "" when none.
func (f *Forge) mergeCommitOf(ctx context.Context, head string) (string, error) {
	cl := f.client(ctx)
	for page := 1; page <= mergeScan/50; page++ {
		commits, resp, err := cl.ListRepoCommits(f.owner, f.repo, sdk.ListCommitOptions{
			ListOptions: sdk.ListOptions{Page: page, PageSize: 50}, SHA: f.cfg.base})
		if err != nil {
			return "", classify("list commits of "+f.cfg.base, f.repoWhat(), resp, err)
		}
		for _, c := range commits {
			for _, p := range c.Parents {
				if p != nil && p.SHA == head && c.SHA != head {
					return c.SHA, nil
				}
			}
		}
		if len(commits) < 50 {
			break
		}
	}
	return "", nil
}

// mergedInGit records a PR merged in git as merged in Gitea too (the "manually merged" style,
// which the repository must allow), and returns it merged at sha either way: the change is
// on the base, which is what the pipeline needs.
func (f *Forge) mergedInGit(ctx context.Context, pr *sdk.PullRequest, sha string) (forge.MergeRequest, error) {
	_, _, _, err := f.postMergeBody(ctx, pr.Index, map[string]any{"Do": "manually-merged", "merge_commit_id": sha})
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if now, err := f.getPR(ctx, pr.Index, pr.Head.Ref); err == nil && now.HasMerged {
		return f.toMR(ctx, now)
	}
	mr, err := f.toMR(ctx, pr)
	mr.State, mr.MergeSHA = forge.StateMerged, sha
	return mr, err
}
