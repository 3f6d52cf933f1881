package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// ConfigDiff is the change the repo would get: the proposed config, or a
// re-render of the committed one against the current stack (EDP's plan diff),
// all read at the plan's pinned revision, as its terraform half reads them.
func (a *Activities) ConfigDiff(ctx context.Context, in contract.DiffInput) (string, error) {
	dir := in.Ref.Dir()
	committed, err := a.Forge.ReadDir(ctx, in.Revision, dir)
	if err != nil {
		return "", classify(err)
	}
	proposedYAML := []byte(in.ConfigYAML)
	if in.ConfigYAML == "" {
		proposedYAML = committed[instanceFile]
	}
	if in.To != "" {
		if proposedYAML, err = a.repin(ctx, in.Revision, proposedYAML, in.To); err != nil {
			return "", err
		}
	}
	proposed, err := a.render(ctx, in.Revision, in.Ref, proposedYAML)
	if err != nil {
		return "", err
	}
	return config.Diff(prefixed(dir, committed), prefixed(dir, proposed)), nil
}

func prefixed(dir string, files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for p, d := range files {
		out[dir+"/"+p] = d
	}
	return out
}
