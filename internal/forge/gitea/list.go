package gitea

import (
	"context"
	"sort"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// listPageSize is asked for per page; the loop follows the Link header whatever Gitea grants.
const listPageSize = 50

// ListOpen lists open PRs into the base whose branch starts with prefix, oldest first.
func (f *Forge) ListOpen(ctx context.Context, prefix string) ([]forge.MergeRequest, error) {
	c := f.client(ctx)
	var prs []*sdk.PullRequest
	for page := 1; page > 0; {
		batch, resp, err := c.ListRepoPullRequests(f.owner, f.repo, sdk.ListPullRequestsOptions{
			State: sdk.StateOpen, Sort: "oldest", ListOptions: sdk.ListOptions{Page: page, PageSize: listPageSize}})
		if err != nil {
			return nil, classify("list pull requests", f.repoWhat(), resp, err)
		}
		for _, pr := range batch {
			if pr.Head != nil && pr.Base != nil && pr.Base.Ref == f.cfg.base && strings.HasPrefix(pr.Head.Ref, prefix) {
				prs = append(prs, pr)
			}
		}
		page = resp.NextPage
	}
	// Index order is creation order, whatever order the pages came in.
	sort.Slice(prs, func(i, j int) bool { return prs[i].Index < prs[j].Index })
	out := make([]forge.MergeRequest, 0, len(prs))
	for _, pr := range prs {
		mr, err := f.toMR(ctx, pr)
		if err != nil {
			return nil, err
		}
		out = append(out, mr)
	}
	return out, nil
}
