package localgit

import (
	"context"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Open commits c onto the base head as a new branch c.Branch, or returns the MR that
// branch already is (open or merged). A closed MR's branch is gone, so c opens anew.
// A change equal to the base creates nothing.
func (f *Forge) Open(ctx context.Context, c forge.Change) (forge.MergeRequest, error) {
	if err := forge.ValidateChange(c, f.base); err != nil {
		return forge.MergeRequest{}, err
	}
	if mr, ok, err := f.Get(ctx, c.Branch); err != nil || ok && mr.State != forge.StateClosed {
		return mr, err
	}
	base, err := f.Head(ctx)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	baseTree, err := f.git.out(ctx, "rev-parse", base+"^{tree}")
	if err != nil {
		return forge.MergeRequest{}, err
	}
	tree, err := f.git.writeTree(ctx, baseTree, c.Dir, c.Files)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if tree == baseTree {
		return forge.MergeRequest{Branch: c.Branch, Title: c.Title, BaseSHA: base, NoChanges: true}, nil
	}
	msg := c.Title + "\n"
	if body := strings.TrimRight(c.Body, "\n"); body != "" {
		msg += "\n" + body + "\n"
	}
	commit, err := f.git.commitTree(ctx, tree, msg, base)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	// The zero old value makes creation a compare-and-swap: a racing duplicate Open loses.
	if err := f.writing(ctx, func() error {
		_, err := f.git.run(ctx, nil, nil, "update-ref", "-m", "slipway: open "+c.Branch,
			"refs/heads/"+c.Branch, commit, zeroOID(commit))
		return err
	}); err != nil {
		if mr, ok, getErr := f.Get(ctx, c.Branch); getErr == nil && ok && mr.State != forge.StateClosed {
			return mr, nil
		}
		return forge.MergeRequest{}, err
	}
	return f.mr(branch{name: c.Branch, head: commit, parent: base, subject: c.Title}, ""), nil
}
