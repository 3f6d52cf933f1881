package gitea

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// treePageSize is asked for per tree page; Gitea caps it at its own maximum and says truncated.
const treePageSize = 1000

// ReadDir returns the files under dir at rev ("" = base head), keyed relative to dir.
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
	blobs, err := f.listBlobs(ctx, rev, dir)
	if err != nil {
		return nil, err
	}
	c := f.client(ctx)
	files := make(map[string][]byte, len(blobs))
	for rel, sha := range blobs {
		b, resp, err := c.GetBlob(f.owner, f.repo, sha)
		if err != nil {
			return nil, classify("get blob "+dir+"/"+rel, "blob "+sha, resp, err)
		}
		data, err := base64.StdEncoding.DecodeString(b.Content)
		if err != nil {
			return nil, &APIError{Op: "decode blob " + dir + "/" + rel, Status: resp.StatusCode, Err: err}
		}
		files[rel] = data
	}
	return files, nil
}

// listBlobs maps each file under dir at rev (relative to dir) to its blob SHA, following
// the tree API's pages.
func (f *Forge) listBlobs(ctx context.Context, rev, dir string) (map[string]string, error) {
	c := f.client(ctx)
	prefix := dir + "/"
	out := map[string]string{}
	for page := 1; ; page++ {
		tree, resp, err := c.GetTrees(f.owner, f.repo, sdk.ListTreeOptions{Ref: rev, Recursive: true,
			ListOptions: sdk.ListOptions{Page: page, PageSize: treePageSize}})
		if err != nil {
			return nil, classify("get tree", "revision "+rev+" in "+f.repoWhat(), resp, err)
		}
		for _, e := range tree.Entries {
			if e.Type == "blob" && strings.HasPrefix(e.Path, prefix) {
				out[strings.TrimPrefix(e.Path, prefix)] = e.SHA
			}
		}
		if !tree.Truncated || len(tree.Entries) == 0 {
			return out, nil
		}
		if page > 100000 {
			return nil, &APIError{Op: "get tree", Err: fmt.Errorf("tree of %s never ends", rev)}
		}
	}
}
