package gitea

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// toMR converts a PR. BaseSHA is the parent of the head commit (the base when Open branched),
// because Gitea's own base SHA follows the base branch and would change after Open.
func (f *Forge) toMR(ctx context.Context, pr *sdk.PullRequest) (forge.MergeRequest, error) {
	if pr.Head == nil || pr.Head.Sha == "" {
		return forge.MergeRequest{}, &APIError{Op: "read pull request", Err: fmt.Errorf("pull request #%d has no head", pr.Index)}
	}
	mr := forge.MergeRequest{ID: strconv.FormatInt(pr.Index, 10), Branch: headBranch(pr), Title: pr.Title,
		State: forge.StateOpen, HeadSHA: pr.Head.Sha, URL: pr.HTMLURL}
	switch {
	case pr.HasMerged:
		mr.State = forge.StateMerged
		if pr.MergedCommitID != nil {
			mr.MergeSHA = *pr.MergedCommitID
		}
	case pr.State == sdk.StateClosed:
		mr.State = forge.StateClosed
	}
	commit, resp, err := f.client(ctx).GetSingleCommit(f.owner, f.repo, pr.Head.Sha)
	if err != nil {
		return mr, classify("get head commit", "commit "+pr.Head.Sha, resp, err)
	}
	if len(commit.Parents) == 0 || commit.Parents[0] == nil {
		return mr, &APIError{Op: "get head commit", Err: fmt.Errorf("commit %s has no parent", pr.Head.Sha)}
	}
	mr.BaseSHA = commit.Parents[0].SHA
	return mr, nil
}

// headBranch is the PR's branch name. Once the branch is deleted (a closed PR) Gitea's ref is
// the PR's own refs/pull/N/head, and only the label still names the branch.
func headBranch(pr *sdk.PullRequest) string {
	if strings.HasPrefix(pr.Head.Ref, "refs/pull/") && pr.Head.Name != "" {
		return pr.Head.Name
	}
	return pr.Head.Ref
}
