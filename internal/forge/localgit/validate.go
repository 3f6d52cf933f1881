package localgit

import (
	"context"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// checkRefName asks git whether name is a valid branch name, so the rules are git's own.
func (f *Forge) checkRefName(ctx context.Context, field, name string) error {
	bad := func(problem string) error { return &forge.InvalidError{Field: field, Value: name, Problem: problem} }
	if name == "" {
		return bad("must not be empty")
	}
	if strings.HasPrefix(name, "-") || strings.ContainsAny(name, "\x00\n") {
		return bad("is not a valid git branch name")
	}
	if _, err := f.git.run(ctx, nil, nil, "check-ref-format", "refs/heads/"+name); err != nil {
		if exitCode(err) == 1 {
			return bad("is not a valid git branch name")
		}
		return err
	}
	return nil
}

// checkBranch validates an MR branch: a valid name that is not the base branch.
func (f *Forge) checkBranch(ctx context.Context, branch string) error {
	if err := f.checkRefName(ctx, "branch", branch); err != nil {
		return err
	}
	if branch == f.base {
		return &forge.InvalidError{Field: "branch", Value: branch, Problem: "must not be the base branch"}
	}
	return nil
}
