package gitlab

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

// GitLab checks the pinned sha and answers 409; that becomes HeadChangedError.
func TestMergeRefusesAMovedHead(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/h/op-1", Title: "op", Dir: "h",
		Files: map[string][]byte{"f": []byte("x")}})
	require.NoError(t, err)
	pushed := srv.Push(mr.Branch, "someone else", map[string][]byte{"h/g": []byte("y")})
	head := srv.BranchHead("main")

	_, err = f.Merge(ctx, mr)
	var hc *forge.HeadChangedError
	require.True(t, errors.As(err, &hc), "want *forge.HeadChangedError, got %v", err)
	assert.Equal(t, forge.HeadChangedError{Branch: mr.Branch, Want: mr.HeadSHA, Got: pushed}, *hc)
	assert.True(t, forge.IsNonRetryable(err))
	assert.Equal(t, head, srv.BranchHead("main"), "nothing merged")
}

func TestMergeKeepsTheBranch(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/k/op-1", Title: "op", Dir: "k",
		Files: map[string][]byte{"f": []byte("x")}})
	require.NoError(t, err)
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, mr.HeadSHA, srv.BranchHead(mr.Branch), "the branch is the idempotency record")
	assert.Equal(t, merged.MergeSHA, srv.BranchHead("main"))
}
