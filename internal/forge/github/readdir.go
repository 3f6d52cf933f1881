package github

import (
	"context"
	"encoding/base64"
	"regexp"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ReadDir returns the files under dir at rev (a commit SHA or a branch; "" is the base head).
func (f *Forge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	if err := forge.CheckRelPath("dir", dir); err != nil {
		return nil, err
	}
	commit, err := f.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	tree, err := f.treeOf(ctx, commit)
	if err != nil {
		return nil, err
	}
	blobs, err := f.listDir(ctx, tree, dir)
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(blobs))
	for name, sha := range blobs {
		blob, _, err := f.client.Git.GetBlob(ctx, f.owner, f.repo, sha)
		if err != nil {
			return nil, f.classify("get blob "+dir+"/"+name, err)
		}
		// GitHub wraps base64 at 60 columns.
		content, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(blob.GetContent(), "\n", ""))
		if err != nil || blob.GetEncoding() != "base64" {
			return nil, f.classify("decode blob "+dir+"/"+name, &forge.InvalidError{Field: "blob encoding", Value: blob.GetEncoding(), Problem: "is not valid base64"})
		}
		files[name] = content
	}
	return files, nil
}

// resolve turns rev into a commit SHA.
func (f *Forge) resolve(ctx context.Context, rev string) (string, error) {
	switch {
	case rev == "":
		return f.Head(ctx)
	case fullSHA.MatchString(rev):
		return rev, nil
	}
	if err := forge.CheckRefName("rev", rev); err != nil {
		return "", err
	}
	sha, ok, err := f.branchHead(ctx, rev)
	if err == nil && !ok {
		err = &forge.NotFoundError{What: "rev " + rev + " of github repository " + f.fullName()}
	}
	return sha, err
}

// treeOf returns the root tree SHA of a commit.
func (f *Forge) treeOf(ctx context.Context, commit string) (string, error) {
	c, _, err := f.client.Git.GetCommit(ctx, f.owner, f.repo, commit)
	if err != nil {
		return "", f.classify("get commit "+commit, err)
	}
	if len(c.Parents) > 0 {
		f.parents.Store(commit, c.Parents[0].GetSHA())
	}
	return c.GetTree().GetSHA(), nil
}
