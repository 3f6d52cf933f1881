package activities

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// A release is cut --from a commit on main's history only: an open MR's commit, whose stack files
// main never merged, is refused naming --from (exit 2); once merged, and any earlier commit of
// main, it is cut.
func TestReleaseFromIsOnMainsHistory(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/s/schema.yaml":            []byte("parameters: []\n"),
		"stacks/s/terraform/main.tf.tmpl": []byte("# v1\n"),
	})
	require.NoError(t, err)
	first, err := f.Head(ctx)
	require.NoError(t, err)
	key, err := attest.Generate()
	require.NoError(t, err)
	seals, err := attest.Parse("test", key)
	require.NoError(t, err)
	a := &Activities{Forge: f, Seals: seals}
	mr, err := f.Open(ctx, forge.Change{Branch: "unreviewed", Title: "t", Dir: "stacks/s",
		Files: map[string][]byte{"schema.yaml": []byte("parameters: []\n"), "terraform/main.tf.tmpl": []byte("# unreviewed\n")}})
	require.NoError(t, err)
	cut := func(version, from string) error {
		_, err := a.Stack(ctx, contract.StackRequest{Op: contract.StackOpRelease, Stack: "s", Version: version, From: from, Notes: "n", ID: "cut-" + version})
		return err
	}

	err = cut("1.0.0", mr.HeadSHA)
	require.ErrorContains(t, err, "--from: "+mr.HeadSHA+" is not on main's history")
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), err)
	require.Equal(t, contract.ErrInvalidConfig, app.Type(), "bad input (exit 2), not a failure")
	require.True(t, app.NonRetryable())

	require.NoError(t, cut("1.0.0", first), "an earlier commit of main")
	_, err = f.Merge(ctx, mr)
	require.NoError(t, err)
	require.NoError(t, cut("1.1.0", mr.HeadSHA), "merged into main")
}
