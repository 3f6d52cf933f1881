package terraform

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree lists the regular files under dir, slash-separated and sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	}))
	sort.Strings(out)
	return out
}

func TestPrepareExactFilesKeepsArtifacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, err := New(t.TempDir(), WithBinary(os.Args[0])) // Prepare never runs terraform
	require.NoError(t, err)
	ws := Workspace{Tenant: "acme", Name: "files"}
	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{
		"main.tf": []byte("# v1\n"), "extra.tf": []byte("#\n"), "sub/x.tf": []byte("#\n"), "sub/deep/y.tftpl": []byte("y"),
	}))
	dir := r.Dir(ws)
	backend, err := os.ReadFile(filepath.Join(dir, BackendFile))
	require.NoError(t, err)
	assert.Equal(t, "terraform {\n  backend \"local\" {}\n}\n", string(backend))

	// Artifacts of init, plan and apply, and some junk.
	for name, data := range map[string]string{
		".terraform/terraform.tfstate": "{}", ".terraform.lock.hcl": "#", "deploy.tfplan": "plan",
		"applied/abc": "x", "stray.txt": "junk", "sub/stale.tf": "#",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
	}
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "main.tf"), old, old))

	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte("# v1\n"), "other.tf": []byte("# new\n")}))
	assert.Equal(t, []string{
		".terraform.lock.hcl", ".terraform/terraform.tfstate", "applied/abc", "deploy.tfplan",
		"main.tf", "other.tf", BackendFile,
	}, tree(t, dir))
	_, err = os.Stat(filepath.Join(dir, "sub"))
	assert.ErrorIs(t, err, os.ErrNotExist, "emptied directories go too")
	st, err := os.Stat(filepath.Join(dir, "main.tf"))
	require.NoError(t, err)
	assert.True(t, st.ModTime().Equal(old), "unchanged files are not rewritten")

	// A path that was a directory can become a file and back.
	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte("#"), "sub": []byte("now a file")}))
	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": []byte("#"), "sub/a.tf": []byte("#")}))
	got, err := os.ReadFile(filepath.Join(dir, "sub", "a.tf"))
	require.NoError(t, err)
	assert.Equal(t, "#", string(got))
}

func TestPreparePGBackendFile(t *testing.T) {
	t.Parallel()
	r, err := New(t.TempDir(), WithBinary(os.Args[0]), WithPGBackend("postgres://unused"))
	require.NoError(t, err)
	ws := Workspace{Tenant: "acme", Name: "pg"}
	require.NoError(t, r.Prepare(context.Background(), ws, map[string][]byte{"main.tf": nil}))
	backend, err := os.ReadFile(filepath.Join(r.Dir(ws), BackendFile))
	require.NoError(t, err)
	assert.Equal(t, "terraform {\n  backend \"pg\" {}\n}\n", string(backend))
}

func TestPrepareRejectsBadPaths(t *testing.T) {
	t.Parallel()
	r, err := New(t.TempDir(), WithBinary(os.Args[0]))
	require.NoError(t, err)
	ws := Workspace{Tenant: "acme", Name: "bad"}
	for _, name := range []string{
		"", "/etc/passwd", "../escape.tf", "a/../b.tf", "./main.tf", `win\path.tf`, BackendFile,
		".terraform/x", "applied/x", "old.tfplan", ".slipway-tmp-1",
	} {
		err := r.Prepare(context.Background(), ws, map[string][]byte{name: []byte("#")})
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, "%q accepted", name)
		assert.Equal(t, "files path", ie.Field, name)
	}
	err = r.Prepare(context.Background(), ws, map[string][]byte{"a": nil, "a/b.tf": nil})
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	assert.True(t, strings.Contains(err.Error(), "both a file and the directory"))

	err = r.Prepare(context.Background(), ws, nil)
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "files", ie.Field)
	_, err = os.Stat(r.Dir(ws))
	assert.ErrorIs(t, err, os.ErrNotExist, "rejected input writes nothing")
}
