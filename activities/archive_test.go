package activities

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// Issue 39: an archive is recorded in git, so the repository alone says which instances are
// archived. The archive's MR marks the instance file archived: true and changes nothing else; a
// second archive opens nothing; a plain deploy's render (its MR) clears it; and a config people
// deploy may not set it.
func TestArchiveIsRecordedInTheInstanceFileAndADeployClearsIt(t *testing.T) {
	ctx := context.Background()
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/s/schema.yaml":             []byte("parameters:\n  - name: greeting\n    type: string\n    required: true\n"),
		"stacks/s/terraform/main.tf.tmpl":  []byte("# {{ .Params.greeting }}\n"),
		"instances/acme/web/instance.yaml": []byte("stack: s\nparameters:\n  greeting: hello\n"),
	})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	instance := func() *config.Instance {
		t.Helper()
		files, err := f.ReadDir(ctx, "", ref.Dir())
		require.NoError(t, err)
		inst, err := config.ParseInstance(files[instanceFile])
		require.NoError(t, err)
		return inst
	}
	merge := func(in contract.OpenMRInput) {
		t.Helper()
		mr, err := a.OpenMergeRequest(ctx, in)
		require.NoError(t, err)
		if !mr.NoChanges {
			_, err = a.MergeMergeRequest(ctx, mr)
			require.NoError(t, err)
		}
	}
	head := func() string {
		t.Helper()
		h, err := f.Head(ctx)
		require.NoError(t, err)
		return h
	}
	// Deployed: main holds slipway's render.
	merge(contract.OpenMRInput{Ref: ref, Operation: "deploy", OpID: "1-e", Rerender: head()})
	require.False(t, instance().Archived)
	before, err := f.ReadDir(ctx, "", ref.Dir())
	require.NoError(t, err)

	merge(contract.OpenMRInput{Ref: ref, Operation: "archive", OpID: "2-e", Archive: head()})
	after, err := f.ReadDir(ctx, "", ref.Dir())
	require.NoError(t, err)
	assert.True(t, instance().Archived, "main's instance file says archived:\n%s", after[instanceFile])
	assert.Equal(t, string(before[instanceFile])+"archived: true\n", string(after[instanceFile]), "only archived: true is added")
	delete(before, instanceFile)
	delete(after, instanceFile)
	assert.Equal(t, before, after, "the archive changes no other file")

	again, err := a.OpenMergeRequest(ctx, contract.OpenMRInput{Ref: ref, Operation: "archive", OpID: "3-e", Archive: head()})
	require.NoError(t, err)
	assert.True(t, again.NoChanges, "an instance marked archived already opens nothing")

	// A deploy -f of a config that sets archived is refused, naming the field.
	_, err = a.ValidateConfig(ctx, contract.ValidateInput{Ref: ref, ConfigYAML: "stack: s\nparameters:\n  greeting: hi\narchived: true\n"})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	assert.Equal(t, contract.ErrInvalidConfig, appErr.Type())
	assert.Contains(t, appErr.Error(), "archived: is written by slipway's archive")

	// A plain deploy (unarchive) renders the committed file again: archived goes.
	merge(contract.OpenMRInput{Ref: ref, Operation: "deploy", OpID: "4-e", Rerender: head()})
	assert.False(t, instance().Archived, "a deploy clears it")
}
