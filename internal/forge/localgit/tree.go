package localgit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// writeTree writes the tree that is baseTree with dir replaced by files (dir removed when
// files is empty) and returns its SHA. baseTree "" starts from an empty tree; dir "" is the
// root. It uses a temporary index of its own, so concurrent calls never share state.
func (r *runner) writeTree(ctx context.Context, baseTree, dir string, files map[string][]byte) (string, error) {
	tmp, err := os.MkdirTemp("", "slipway-localgit-*")
	if err != nil {
		return "", fmt.Errorf("localgit: temporary index: %w", err)
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}

	var info bytes.Buffer // update-index --index-info -z input
	if baseTree != "" {
		if _, err := r.run(ctx, nil, env, "read-tree", baseTree); err != nil {
			return "", err
		}
		old, err := r.pathsUnder(ctx, baseTree, dir)
		if err != nil {
			return "", err
		}
		for _, p := range old {
			fmt.Fprintf(&info, "0 %s\t%s\x00", zeroOID(baseTree), p) // mode 0 removes the entry
		}
	}
	blobs, err := r.hashBlobs(ctx, tmp, files)
	if err != nil {
		return "", err
	}
	for _, name := range sortedKeys(files) {
		fmt.Fprintf(&info, "100644 %s\t%s\x00", blobs[name], path.Join(dir, name))
	}
	if info.Len() > 0 {
		if _, err := r.run(ctx, &info, env, "update-index", "--add", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	b, err := r.run(ctx, nil, env, "write-tree")
	return strings.TrimSpace(string(b)), err
}

// pathsUnder lists the files of tree at dir or below it (all files when dir is "").
func (r *runner) pathsUnder(ctx context.Context, tree, dir string) ([]string, error) {
	args := []string{"ls-tree", "-r", "-z", "--name-only", tree}
	if dir != "" {
		args = append(args, "--", dir)
	}
	out, err := r.run(ctx, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && (dir == "" || p == dir || strings.HasPrefix(p, dir+"/")) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// hashBlobs stores every file as a blob with one git process and returns name -> blob SHA.
func (r *runner) hashBlobs(ctx context.Context, tmp string, files map[string][]byte) (map[string]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	names := sortedKeys(files)
	var list bytes.Buffer
	for i, name := range names {
		// Numbered temp files keep odd repo paths away from the filesystem.
		p := filepath.Join(tmp, "blob-"+strconv.Itoa(i))
		if err := os.WriteFile(p, files[name], 0o600); err != nil {
			return nil, fmt.Errorf("localgit: write temporary blob: %w", err)
		}
		list.WriteString(p + "\n")
	}
	out, err := r.run(ctx, &list, nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	shas := strings.Fields(string(out))
	if len(shas) != len(names) {
		return nil, fmt.Errorf("localgit: hash-object returned %d ids for %d files", len(shas), len(names))
	}
	blobs := make(map[string]string, len(names))
	for i, name := range names {
		blobs[name] = shas[i]
	}
	return blobs, nil
}

// commitTree writes a commit of tree with the given parents and message and returns its SHA.
func (r *runner) commitTree(ctx context.Context, tree, message string, parents ...string) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign", "-F", "-"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	b, err := r.run(ctx, strings.NewReader(message), nil, append(args, tree)...)
	return strings.TrimSpace(string(b)), err
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
