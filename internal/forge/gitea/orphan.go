package gitea

import (
	"context"
	"fmt"
	"net/http"
)

// A worker lost in the middle of a commit cancels Gitea's request, and Gitea cancels its own
// push with it: git has already moved the branch, but the post-receive hook that records the
// branch in Gitea's database never runs. That branch can neither be pushed to nor opened as
// a PR, so a change whose branch is orphaned moves on to the next name of a fixed sequence:
// every retry walks the same names and finds the PR wherever it was opened.
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
