package localgit

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// ReadDir returns the files under dir at rev ("" is the base head), keyed by path relative
// to dir; dir "" is the whole repository. A missing dir gives an empty map.
func (f *Forge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	if dir != "" {
		if err := forge.CheckRelPath("dir", dir); err != nil {
			return nil, err
		}
	}
	if rev == "" {
		rev = f.baseRef()
	}
	if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n ") {
		return nil, &forge.InvalidError{Field: "rev", Value: rev, Problem: "is not a git revision"}
	}
	tree, err := f.git.resolve(ctx, rev+"^{tree}")
	if err != nil {
		return nil, err
	}
	if tree == "" {
		return nil, &forge.NotFoundError{What: "revision " + rev + " in " + f.path}
	}
	if dir != "" {
		sub, err := f.git.resolve(ctx, tree+":"+dir)
		if err != nil || sub == "" {
			return map[string][]byte{}, err
		}
		if kind, err := f.git.out(ctx, "cat-file", "-t", sub); err != nil || kind != "tree" {
			if err == nil {
				err = &forge.InvalidError{Field: "dir", Value: dir, Problem: "is a " + kind + " at " + rev + ", not a directory"}
			}
			return nil, err
		}
		tree = sub
	}
	return f.git.readTree(ctx, tree)
}

// readTree returns every blob below tree by path, using one ls-tree and one cat-file --batch.
func (r *runner) readTree(ctx context.Context, tree string) (map[string][]byte, error) {
	out, err := r.run(ctx, nil, nil, "ls-tree", "-r", "-z", tree)
	if err != nil {
		return nil, err
	}
	var names, shas []string
	var want bytes.Buffer
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(entry, "\t") // "<mode> <type> <sha>\t<path>"
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			names, shas = append(names, name), append(shas, f[2])
			want.WriteString(f[2] + "\n")
		} // submodule entries (type commit) have no content here
	}
	files := make(map[string][]byte, len(names))
	if len(names) == 0 {
		return files, nil
	}
	raw, err := r.run(ctx, &want, nil, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	rd := bufio.NewReader(bytes.NewReader(raw))
	for i, name := range names {
		content, err := readBatchObject(rd, shas[i])
		if err != nil {
			return nil, err
		}
		files[name] = content
	}
	return files, nil
}

// readBatchObject reads one "<sha> <type> <size>\n<content>\n" record of cat-file --batch.
func readBatchObject(rd *bufio.Reader, sha string) ([]byte, error) {
	header, err := rd.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("localgit: cat-file --batch: reading header of %s: %w", sha, err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[0] != sha {
		return nil, fmt.Errorf("localgit: cat-file --batch: unexpected header %q for %s", strings.TrimSpace(header), sha)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("localgit: cat-file --batch: bad size in %q", strings.TrimSpace(header))
	}
	content := make([]byte, size+1) // plus the record's trailing newline
	if _, err := io.ReadFull(rd, content); err != nil {
		return nil, fmt.Errorf("localgit: cat-file --batch: reading %s: %w", sha, err)
	}
	return content[:size], nil
}
