package github

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v62/github"
)

// TruncatedTreeError means GitHub cut a recursive tree listing short, so slipway cannot
// see every file under the directory.
type TruncatedTreeError struct {
	Dir string
}

func (e *TruncatedTreeError) Error() string {
	return fmt.Sprintf("github: the tree of %s is too large for one recursive listing", e.Dir)
}

// listDir returns the blobs under dir in tree (path relative to dir → blob SHA). It walks
// down one level at a time so only dir's subtree is listed recursively, not the whole repo.
func (f *Forge) listDir(ctx context.Context, tree, dir string) (map[string]string, error) {
	cur := tree
	for _, part := range strings.Split(dir, "/") {
		t, _, err := f.client.Git.GetTree(ctx, f.owner, f.repo, cur, false)
		if err != nil {
			return nil, f.classify("get tree "+cur, err)
		}
		next := ""
		for _, e := range t.Entries {
			if e.GetPath() == part && e.GetType() == "tree" {
				next = e.GetSHA()
			}
		}
		if next == "" {
			return map[string]string{}, nil
		}
		cur = next
	}
	t, _, err := f.client.Git.GetTree(ctx, f.owner, f.repo, cur, true)
	if err != nil {
		return nil, f.classify("get tree "+dir, err)
	}
	if t.GetTruncated() {
		return nil, &TruncatedTreeError{Dir: dir}
	}
	files := map[string]string{}
	for _, e := range t.Entries {
		if e.GetType() == "blob" {
			files[e.GetPath()] = e.GetSHA()
		}
	}
	return files, nil
}

// blobSHA is git's object ID of a blob, so unchanged files are recognised without a call.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// treeEntries lists the edits that turn dir (holding existing) into files: changed files,
// and sha-null deletions of the rest. None means the change equals the base.
func (f *Forge) treeEntries(ctx context.Context, dir string, existing map[string]string, files map[string][]byte) ([]*gh.TreeEntry, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var entries []*gh.TreeEntry
	for _, name := range names {
		content := files[name]
		if existing[name] == blobSHA(content) {
			continue
		}
		e := &gh.TreeEntry{Path: gh.String(dir + "/" + name), Mode: gh.String("100644"), Type: gh.String("blob")}
		if utf8.Valid(content) {
			e.Content = gh.String(string(content))
		} else {
			// Inline content must be UTF-8; anything else goes up as a base64 blob first.
			blob, _, err := f.client.Git.CreateBlob(ctx, f.owner, f.repo, &gh.Blob{
				Content: gh.String(base64.StdEncoding.EncodeToString(content)), Encoding: gh.String("base64")})
			if err != nil {
				return nil, f.classify("create blob "+dir+"/"+name, err)
			}
			e.SHA = blob.SHA
		}
		entries = append(entries, e)
	}
	var gone []string
	for name := range existing {
		if _, keep := files[name]; !keep {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		// Neither SHA nor content: go-github sends "sha": null, GitHub's delete.
		entries = append(entries, &gh.TreeEntry{Path: gh.String(dir + "/" + name), Mode: gh.String("100644"), Type: gh.String("blob")})
	}
	return entries, nil
}
