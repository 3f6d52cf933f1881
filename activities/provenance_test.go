package activities

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// On a real git repository: the record is of slipway's own commit, and a tenant's commit to the
// rendered files afterwards fails the check naming the files and that commit.
func TestRecordAndVerifyRender(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{"README.md": []byte("gitops\n")})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	open := func(branch string, files map[string][]byte) forge.MergeRequest {
		mr, err := f.Open(ctx, forge.Change{Branch: branch, Title: branch, Dir: "instances/acme/web", Files: files})
		require.NoError(t, err)
		mr, err = f.Merge(ctx, mr)
		require.NoError(t, err)
		return mr
	}
	mr := open("slipway/acme/web/deploy-1", map[string][]byte{"instance.yaml": []byte("stack: s\n"), "terraform/main.tf": []byte("# ok\n"), "hooks/drain.sh": []byte("exit 0\n")})
	rec, err := a.RecordRender(ctx, contract.RecordRenderInput{Ref: ref, Commit: mr.HeadSHA, Revision: mr.MergeSHA})
	require.NoError(t, err)
	assert.Equal(t, mr.MergeSHA, rec.Revision)
	assert.Len(t, rec.Files, 3)
	assert.Equal(t, "b3ed6ea75c33725d7621e484187619d0c02b07228aece4ac34c1d1d53884ebf2", rec.Files["terraform/main.tf"], "sha256sum of the file")
	require.NoError(t, a.VerifyRender(ctx, contract.VerifyRenderInput{Ref: ref, Revision: mr.MergeSHA, Render: rec}))

	edit := open("tenant-edit", map[string][]byte{"instance.yaml": []byte("stack: s\n"), "terraform/main.tf": []byte("# pwned\n"), "terraform/extra.tf": []byte("#\n")})
	err = a.VerifyRender(ctx, contract.VerifyRenderInput{Ref: ref, Revision: edit.MergeSHA, Render: rec})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	assert.Equal(t, contract.ErrRenderChanged, appErr.Type())
	assert.True(t, appErr.NonRetryable())
	var c contract.RenderChange
	require.NoError(t, appErr.Details(&c))
	assert.Equal(t, []string{"terraform/main.tf"}, c.Changed)
	assert.Equal(t, []string{"terraform/extra.tf"}, c.Added)
	assert.Equal(t, []string{"hooks/drain.sh"}, c.Removed)
	assert.Contains(t, c.Diff, "--- a/instances/acme/web/terraform/main.tf\n+++ b/instances/acme/web/terraform/main.tf\n@@ -1,1 +1,1 @@\n-# ok\n+# pwned\n")
	assert.Contains(t, c.Diff, "--- /dev/null\n+++ b/instances/acme/web/terraform/extra.tf\n")
	assert.Contains(t, c.Diff, "--- a/instances/acme/web/hooks/drain.sh\n+++ /dev/null\n")
	assert.NotContains(t, c.Diff, "instance.yaml", "only what changed")
	require.Len(t, c.Commits, 1)
	assert.Equal(t, edit.HeadSHA, c.Commits[0].SHA)
	assert.Contains(t, appErr.Message(), "instances/acme/web at "+edit.MergeSHA[:12]+" is not what slipway rendered at merge "+mr.MergeSHA[:12])
	assert.Contains(t, appErr.Message(), "changed terraform/main.tf; added terraform/extra.tf; removed hooks/drain.sh; by commit "+edit.HeadSHA[:12]+" (slipway <slipway@localhost>: tenant-edit)")
}

// A local create adopts a tenant's commit: only its instance.yaml is recorded, so the tenant's
// terraform pushed beside it is "added" to verify-render, never vouched for.
func TestAnAdoptedCommitRecordsOnlyTheInstanceFile(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{"README.md": []byte("gitops\n")})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	ref := contract.Ref{Tenant: "acme", Name: "evil"}
	mr, err := f.Open(ctx, forge.Change{Branch: "tenant-push", Title: "tenant push", Dir: ref.Dir(),
		Files: map[string][]byte{"instance.yaml": []byte("stack: s\n"), "terraform/main.tf": []byte("# the tenant's\n")}})
	require.NoError(t, err)
	mr, err = f.Merge(ctx, mr)
	require.NoError(t, err)
	rec, err := a.RecordRender(ctx, contract.RecordRenderInput{Ref: ref, Commit: mr.MergeSHA, Revision: mr.MergeSHA, Adopt: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"instance.yaml"}, slices.Collect(maps.Keys(rec.Files)))
	err = a.VerifyRender(ctx, contract.VerifyRenderInput{Ref: ref, Revision: mr.MergeSHA, Render: rec})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	var c contract.RenderChange
	require.NoError(t, appErr.Details(&c))
	assert.Equal(t, []string{"terraform/main.tf"}, c.Added)
	assert.Empty(t, c.Changed)
}
