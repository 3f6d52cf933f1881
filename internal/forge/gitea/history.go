package gitea

import (
	"context"
	"net/http"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.History = (*Forge)(nil)

// Commits lists the commits reachable from to and not from from that changed dir (the commits
// API with path and not: git log to --not from -- dir).
func (f *Forge) Commits(ctx context.Context, from, to, dir string) ([]forge.Commit, error) {
	if err := forge.CheckRelPath("dir", dir); err != nil {
		return nil, err
	}
	list, resp, err := f.client(ctx).ListRepoCommits(f.owner, f.repo, sdk.ListCommitOptions{
		ListOptions: sdk.ListOptions{PageSize: forge.MaxCommits}, SHA: to, Path: dir, Not: from})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil // Gitea answers 404, not an empty list, when no commit in the range changed dir
	}
	if err != nil {
		return nil, classify("list commits", "commits "+from+".."+to+" of "+dir, resp, err)
	}
	var out []forge.Commit
	for _, c := range list {
		if c == nil || c.CommitMeta == nil || c.RepoCommit == nil {
			continue
		}
		author := ""
		if a := c.RepoCommit.Author; a != nil {
			author = a.Name + " <" + a.Email + ">"
		}
		subject, _, _ := strings.Cut(c.RepoCommit.Message, "\n")
		out = append(out, forge.Commit{SHA: c.SHA, Author: author, Subject: subject})
		if len(out) == forge.MaxCommits {
			break
		}
	}
	return out, nil
}
