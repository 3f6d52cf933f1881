package gitlab

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestOpenMakesOneCommitForTheWholeDir(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	forgetestMerge := func(c forge.Change) {
		mr, err := f.Open(ctx, c)
		require.NoError(t, err)
		_, err = f.Merge(ctx, mr)
		require.NoError(t, err)
	}
	forgetestMerge(forge.Change{Branch: "slipway/o/p-1", Title: "p", Dir: "o",
		Files: map[string][]byte{"a": []byte("1"), "b/c": []byte("2"), "gone": []byte("3")}})
	base, err := f.Head(ctx)
	require.NoError(t, err)

	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/o/u-2", Title: "u", Body: "why", Dir: "o",
		Files: map[string][]byte{"a": []byte("1"), "b/c": []byte("22"), "new": []byte("4")}})
	require.NoError(t, err)
	assert.Equal(t, base, mr.BaseSHA)
	parent, err := f.parent(ctx, mr.HeadSHA)
	require.NoError(t, err)
	assert.Equal(t, base, parent, "create, update and delete land in ONE commit on the base")
	assert.Equal(t, srv.BranchHead("slipway/o/u-2"), mr.HeadSHA)

	var commits int
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r, "POST ") && strings.Contains(r, "/repository/commits") {
			commits++
		}
	}
	assert.Equal(t, 2, commits, "one commit per change")
}

func TestOpenReusesABranchLeftWithoutMR(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	base := srv.BranchHead("main")
	// An earlier attempt committed the branch and died before opening the MR.
	head := srv.Push("slipway/left/op-1", "left behind", map[string][]byte{"left/f": []byte("x")})
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/left/op-1", Title: "op", Dir: "left",
		Files: map[string][]byte{"f": []byte("different")}})
	require.NoError(t, err)
	assert.Equal(t, head, mr.HeadSHA, "the existing commit is reused, never rewritten")
	assert.Equal(t, forge.StateOpen, mr.State)
	assert.Equal(t, base, mr.BaseSHA)
}

func TestOpenRejectsTheBaseBranch(t *testing.T) {
	f, _ := newFake(t)
	_, err := f.Open(context.Background(), forge.Change{Branch: "main", Title: "t", Dir: "d"})
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "branch", invalid.Field)
}
