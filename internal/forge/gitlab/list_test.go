package gitlab

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

func TestListOpenFollowsPagination(t *testing.T) {
	f, srv := newFake(t, fakegitlab.WithMaxPerPage(2))
	ctx := context.Background()
	var want []forge.MergeRequest
	for i := range 5 {
		mr, err := f.Open(ctx, forge.Change{Branch: fmt.Sprintf("slipway/p/web/op-%d", i), Title: "op",
			Dir: fmt.Sprintf("p/%d", i), Files: map[string][]byte{"f": []byte("x")}})
		require.NoError(t, err)
		want = append(want, mr)
	}
	got, err := f.ListOpen(ctx, "slipway/p/")
	require.NoError(t, err)
	assert.Equal(t, want, got, "all five MRs across three pages, oldest first")

	var pages []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r, "GET ") && strings.Contains(r, "/merge_requests?") && strings.Contains(r, "state=opened") {
			pages = append(pages, r)
		}
	}
	require.Len(t, pages, 3)
	assert.Contains(t, pages[1], "page=2")
	assert.Contains(t, pages[2], "page=3")
}

func TestReadDirFollowsPagination(t *testing.T) {
	f, _ := newFake(t, fakegitlab.WithMaxPerPage(2))
	ctx := context.Background()
	files := map[string][]byte{}
	for i := range 7 {
		files[fmt.Sprintf("d%d/f%d.yaml", i%3, i)] = []byte(fmt.Sprintf("n: %d\n", i))
	}
	mr, err := f.Open(ctx, forge.Change{Branch: "slipway/r/op-1", Title: "op", Dir: "r", Files: files})
	require.NoError(t, err)
	got, err := f.ReadDir(ctx, mr.HeadSHA, "r")
	require.NoError(t, err)
	assert.Equal(t, files, got)
}
