package github

import (
	"context"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// ListOpen lists the open pull requests into the base whose branch starts with prefix,
// oldest first, following every page.
func (f *Forge) ListOpen(ctx context.Context, prefix string) ([]forge.MergeRequest, error) {
	if strings.ContainsAny(prefix, "\x00\n") {
		return nil, &forge.InvalidError{Field: "prefix", Value: prefix, Problem: "must not contain NUL or newline"}
	}
	opts := &gh.PullRequestListOptions{State: "open", Base: f.base, Sort: "created", Direction: "asc",
		ListOptions: gh.ListOptions{PerPage: f.pageSize}}
	prs, err := f.listPulls(ctx, "list open pull requests", opts)
	if err != nil {
		return nil, err
	}
	mrs := []forge.MergeRequest{}
	for _, pr := range prs {
		// A fork's PR has a branch of another repository: not slipway's.
		if !strings.EqualFold(pr.GetHead().GetRepo().GetFullName(), f.fullName()) || !strings.HasPrefix(pr.GetHead().GetRef(), prefix) {
			continue
		}
		mr, err := f.toMR(ctx, pr)
		if err != nil {
			return nil, err
		}
		mrs = append(mrs, mr)
	}
	return mrs, nil
}
