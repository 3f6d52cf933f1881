package gitea

import (
	"context"
	"fmt"
)

// Head returns the commit SHA of the base branch.
func (f *Forge) Head(ctx context.Context) (string, error) {
	b, resp, err := f.client(ctx).GetRepoBranch(f.owner, f.repo, f.cfg.base)
	if err != nil {
		return "", classify("get base branch", f.repoWhat()+" or its branch "+f.cfg.base, resp, err)
	}
	if b.Commit == nil || b.Commit.ID == "" {
		return "", &APIError{Op: "get base branch", Status: resp.StatusCode, Err: fmt.Errorf("branch %s has no commit", f.cfg.base)}
	}
	return b.Commit.ID, nil
}
