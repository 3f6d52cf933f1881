package gitea

import (
	"context"
	"strconv"
	"testing"

	sdk "code.gitea.io/sdk/gitea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// readBack reads statuses and comments back through Gitea's own API.
func readBack(f *Forge) forgetest.ReadBack {
	return forgetest.ReadBack{
		Statuses: func(t *testing.T, sha string) []forge.CommitStatus {
			combined, _, err := f.client(context.Background()).GetCombinedStatus(f.owner, f.repo, sha)
			require.NoError(t, err)
			var out []forge.CommitStatus
			for _, s := range combined.Statuses { // the latest status of each context
				out = append(out, forge.CommitStatus{State: forge.StatusState(s.State), Context: s.Context,
					Description: s.Description, TargetURL: s.TargetURL})
			}
			return out
		},
		Comments: func(t *testing.T, mr forge.MergeRequest) []string {
			index, err := strconv.ParseInt(mr.ID, 10, 64)
			require.NoError(t, err)
			var out []string
			for page := 1; page > 0; {
				comments, resp, err := f.client(context.Background()).ListIssueComments(f.owner, f.repo, index,
					sdk.ListIssueCommentOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: listPageSize}})
				require.NoError(t, err)
				for _, c := range comments {
					out = append(out, c.Body)
				}
				if page = resp.NextPage; len(comments) == 0 {
					break
				}
			}
			return out
		},
	}
}

func TestReport(t *testing.T) {
	s := giteaserver.Shared(t)
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f := newRepo(t, s)
		return f, readBack(f)
	})
}

func TestCommentScansEveryComment(t *testing.T) {
	s := giteaserver.Shared(t)
	f := newRepo(t, s)
	ctx := context.Background()
	mr, err := f.Open(ctx, forgetest.Change("web/op-1", "apps/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	index, err := strconv.ParseInt(mr.ID, 10, 64)
	require.NoError(t, err)
	n := listPageSize + 3 // more than one page, if Gitea pages this list
	for i := range n {
		_, _, err := f.client(ctx).CreateIssueComment(f.owner, f.repo, index, sdk.CreateIssueCommentOption{Body: "chatter " + strconv.Itoa(i)})
		require.NoError(t, err)
	}
	require.NoError(t, f.Comment(ctx, mr, "plan", "Plan: 1 to add"))
	require.NoError(t, f.Comment(ctx, mr, "plan", "Plan: 1 to add"), "the marker is found after the chatter")
	assert.Len(t, readBack(f).Comments(t, mr), n+1)
}
