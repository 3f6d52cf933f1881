package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

// RecordRender hashes the files of the instance's directory in the commit slipway made (the
// MR's head, which the merge pinned), so later steps can tell them from anything committed since.
func (a *Activities) RecordRender(ctx context.Context, in contract.RecordRenderInput) (contract.Render, error) {
	files, err := a.Forge.ReadDir(ctx, in.Commit, in.Ref.Dir())
	if err != nil {
		return contract.Render{}, classify(err)
	}
	if in.Adopt {
		// A tenant's commit: slipway vouches only for the config it validated; the next deploy
		// renders the rest through its own MR, and verify-render flags anything else as added.
		adopted := map[string][]byte{}
		if data, ok := files[instanceFile]; ok {
			adopted[instanceFile] = data
		}
		files = adopted
	}
	return contract.Render{Revision: in.Revision, Files: hashFiles(files)}, nil
}

// VerifyRender checks that the instance's directory at the revision holds exactly the files
// recorded at slipway's merge. A difference fails the step (ErrRenderChanged, non-retryable)
// naming the files and the commits that changed them: terraform and hooks never run them.
func (a *Activities) VerifyRender(ctx context.Context, in contract.VerifyRenderInput) error {
	dir := in.Ref.Dir()
	files, err := a.Forge.ReadDir(ctx, in.Revision, dir)
	if err != nil {
		return classify(err)
	}
	c := compareRender(in.Render.Files, hashFiles(files))
	if len(c.Files()) == 0 {
		return nil
	}
	c.Dir, c.Since, c.Revision = dir, in.Render.Revision, in.Revision
	c.Diff = a.renderDiff(ctx, in, c, files)
	if h, ok := forge.As[forge.History](a.Forge); ok && in.Render.Revision != "" {
		// Best effort: without the commits the message gives the range to read instead.
		if commits, err := h.Commits(ctx, in.Render.Revision, in.Revision, dir); err == nil {
			c.Commits = commits
		}
	}
	return temporal.NewNonRetryableApplicationError(c.Message(), contract.ErrRenderChanged, nil, c)
}

// renderDiff is the change from what slipway rendered to the files found, bounded: the old side
// is read at the recorded merge (best effort) and kept only where it hashes as recorded.
func (a *Activities) renderDiff(ctx context.Context, in contract.VerifyRenderInput, c contract.RenderChange, found map[string][]byte) string {
	var rendered map[string][]byte
	if in.Render.Revision != "" {
		rendered, _ = a.Forge.ReadDir(ctx, in.Render.Revision, c.Dir)
	}
	was, now := map[string][]byte{}, map[string][]byte{}
	for _, path := range c.Files() {
		if data, ok := found[path]; ok {
			now[path] = data
		}
		if data, ok := rendered[path]; ok && hashOf(data) == in.Render.Files[path] {
			was[path] = data
		}
	}
	diff := config.Diff(prefixed(c.Dir, was), prefixed(c.Dir, now))
	if len(diff) > contract.MaxRenderDiff {
		cut := strings.LastIndexByte(diff[:contract.MaxRenderDiff], '\n') + 1
		diff = diff[:cut] + fmt.Sprintf("... %d more bytes: git diff %s %s -- %s\n", len(diff)-cut, c.Since, c.Revision, c.Dir)
	}
	return diff
}

// hashFiles is the hex SHA-256 of each file's bytes.
func hashFiles(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for path, data := range files {
		out[path] = hashOf(data)
	}
	return out
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// compareRender lists the files that differ between the recorded hashes and those found.
func compareRender(recorded, found map[string]string) contract.RenderChange {
	var c contract.RenderChange
	for path, h := range found {
		switch was, ok := recorded[path]; {
		case !ok:
			c.Added = append(c.Added, path)
		case was != h:
			c.Changed = append(c.Changed, path)
		}
	}
	for path := range recorded {
		if _, ok := found[path]; !ok {
			c.Removed = append(c.Removed, path)
		}
	}
	slices.Sort(c.Changed)
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	return c
}
