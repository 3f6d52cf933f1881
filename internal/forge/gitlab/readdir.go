package gitlab

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// ReadDir returns the files under dir at rev ("" = base head), keyed by path relative to dir.
func (f *Forge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	if err := forge.CheckRelPath("dir", dir); err != nil {
		return nil, err
	}
	if rev == "" {
		head, err := f.Head(ctx)
		if err != nil {
			return nil, err
		}
		rev = head
	}
	blobs, err := f.tree(ctx, rev, dir)
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(blobs))
	for p, id := range blobs {
		content, resp, err := f.client.Repositories.RawBlobContent(f.project, id, gl.WithContext(ctx))
		if err != nil {
			return nil, f.translate("get blob "+id, "blob "+id+" ("+p+")", resp, err)
		}
		files[strings.TrimPrefix(p, dir+"/")] = content
	}
	return files, nil
}

// tree lists the blobs under dir at rev recursively (repo path → blob ID), following
// every page. A missing dir is empty; a missing rev is a *forge.NotFoundError.
func (f *Forge) tree(ctx context.Context, rev, dir string) (map[string]string, error) {
	opt := &gl.ListTreeOptions{Path: gl.Ptr(dir), Ref: gl.Ptr(rev), Recursive: gl.Ptr(true),
		ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	blobs := map[string]string{}
	for {
		nodes, resp, err := f.client.Repositories.ListTree(f.project, opt, gl.WithContext(ctx))
		if status(resp) == 404 {
			// GitLab says 404 for a missing path and a missing ref alike: tell them apart.
			if _, err := f.parent(ctx, rev); err != nil {
				return nil, err
			}
			return blobs, nil
		}
		if err != nil {
			return nil, f.translate(fmt.Sprintf("list tree %s at %s", dir, rev), "tree "+dir, resp, err)
		}
		for _, n := range nodes {
			if n.Type == "blob" {
				blobs[n.Path] = n.ID
			}
		}
		if resp.NextPage == 0 {
			return blobs, nil
		}
		opt.Page = resp.NextPage
	}
}

// blobID is git's object ID for content, so unchanged files need no download to compare.
func blobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
