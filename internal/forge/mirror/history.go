package mirror

import (
	"context"
	"errors"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.History = (*Forge)(nil)

// Commits asks the forge, or the mirror while the forge is down; neither knowing how is no commits.
func (f *Forge) Commits(ctx context.Context, from, to, dir string) ([]forge.Commit, error) {
	h, ok := f.Forge.(forge.History)
	if !ok {
		return nil, nil
	}
	commits, err := h.Commits(ctx, from, to, dir)
	if !down(err) {
		return commits, err
	}
	mh, ok := f.mirror.(forge.History)
	if !ok {
		return nil, err
	}
	mcommits, merr := mh.Commits(ctx, from, to, dir)
	if merr != nil {
		return nil, errors.Join(err, merr)
	}
	return mcommits, nil
}
