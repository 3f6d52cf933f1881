package github

import (
	"context"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Open commits c onto the base head as branch c.Branch (one tree, one commit) and opens its
// pull request, or returns the PR that branch already has (open or merged) unchanged.
func (f *Forge) Open(ctx context.Context, c forge.Change) (forge.MergeRequest, error) {
	if err := forge.ValidateChange(c, f.base); err != nil {
		return forge.MergeRequest{}, err
	}
	if mr, ok, err := f.Get(ctx, c.Branch); err != nil || ok {
		return mr, err
	}
	base, err := f.Head(ctx)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	tip, exists, err := f.branchHead(ctx, c.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if !exists || tip == base {
		// No branch, or one left without its commit: build the commit.
		commit, noChanges, err := f.commit(ctx, base, c)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		if noChanges {
			return forge.MergeRequest{Branch: c.Branch, Title: c.Title, BaseSHA: base, NoChanges: true}, nil
		}
		if tip, err = f.pointBranch(ctx, c.Branch, commit, exists); err != nil {
			return forge.MergeRequest{}, err
		}
	}
	// An existing branch with a commit of its own is a crashed earlier Open: keep its content.
	pr, _, err := f.client.PullRequests.Create(ctx, f.owner, f.repo, &gh.NewPullRequest{
		Title: gh.String(c.Title), Head: gh.String(c.Branch), Base: gh.String(f.base), Body: gh.String(c.Body)})
	if err != nil {
		if statusOf(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "already exists") {
			if mr, ok, getErr := f.Get(ctx, c.Branch); getErr != nil || ok {
				return mr, getErr
			}
		}
		return forge.MergeRequest{}, f.classify("open pull request for "+c.Branch, err)
	}
	return f.toMR(ctx, pr)
}

// commit builds the one tree and one commit of c on base; noChanges when c equals base.
func (f *Forge) commit(ctx context.Context, base string, c forge.Change) (sha string, noChanges bool, err error) {
	baseTree, err := f.treeOf(ctx, base)
	if err != nil {
		return "", false, err
	}
	existing, err := f.listDir(ctx, baseTree, c.Dir)
	if err != nil {
		return "", false, err
	}
	entries, err := f.treeEntries(ctx, c.Dir, existing, c.Files)
	if err != nil || len(entries) == 0 {
		return "", err == nil, err
	}
	tree, _, err := f.client.Git.CreateTree(ctx, f.owner, f.repo, baseTree, entries)
	if err != nil {
		return "", false, f.classify("create tree for "+c.Branch, err)
	}
	msg := c.Title + "\n"
	if body := strings.TrimRight(c.Body, "\n"); body != "" {
		msg += "\n" + body + "\n"
	}
	commit, _, err := f.client.Git.CreateCommit(ctx, f.owner, f.repo, &gh.Commit{
		Message: gh.String(msg), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: gh.String(base)}}}, nil)
	if err != nil {
		return "", false, f.classify("create commit for "+c.Branch, err)
	}
	f.parents.Store(commit.GetSHA(), base)
	return commit.GetSHA(), false, nil
}

// pointBranch makes branch point at commit (creating it, or fast-forwarding an empty one)
// and returns the branch's head; a racing Open that created it first wins.
func (f *Forge) pointBranch(ctx context.Context, branch, commit string, exists bool) (string, error) {
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(commit)}}
	var err error
	if exists {
		_, _, err = f.client.Git.UpdateRef(ctx, f.owner, f.repo, ref, false)
	} else {
		_, _, err = f.client.Git.CreateRef(ctx, f.owner, f.repo, ref)
	}
	if err == nil {
		return commit, nil
	}
	if statusOf(err) == http.StatusUnprocessableEntity {
		// "Reference already exists" / "not a fast forward": someone else set it; use theirs.
		if tip, ok, getErr := f.branchHead(ctx, branch); getErr == nil && ok && tip != commit {
			return tip, nil
		}
	}
	return "", f.classify("create branch "+branch, err)
}
