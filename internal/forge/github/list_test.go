package github

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestListOpenFollowsPages(t *testing.T) {
	f, srv := newFake(t)
	f.pageSize = 2
	var want []forge.MergeRequest
	for i := range 5 {
		want = append(want, openOne(t, f, fmt.Sprintf("p/op-%d", i)))
	}
	openOne(t, f, "other/op-1")
	before := srv.Calls(listPulls)

	got, err := f.ListOpen(context.Background(), "slipway/contract/p/")
	require.NoError(t, err)
	assert.Equal(t, want, got, "all five across three pages, oldest first")
	assert.Equal(t, before+3, srv.Calls(listPulls), "six open PRs at two per page")
}
