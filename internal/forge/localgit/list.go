package localgit

import (
	"context"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// ListOpen lists branches starting with prefix whose heads are not in the base branch,
// oldest first (by commit time, in seconds; ties by branch name).
func (f *Forge) ListOpen(ctx context.Context, prefix string) ([]forge.MergeRequest, error) {
	if strings.ContainsAny(prefix, "\x00\n") {
		return nil, &forge.InvalidError{Field: "prefix", Value: prefix, Problem: "must not contain NUL or newline"}
	}
	// The last --sort is the primary key.
	list, err := f.git.branches(ctx, "--no-merged="+f.baseRef(), "--sort=refname", "--sort=committerdate", "refs/heads/")
	if err != nil {
		return nil, err
	}
	mrs := []forge.MergeRequest{}
	for _, b := range list {
		if strings.HasPrefix(b.name, prefix) && b.name != f.base {
			mrs = append(mrs, f.mr(b, ""))
		}
	}
	return mrs, nil
}
