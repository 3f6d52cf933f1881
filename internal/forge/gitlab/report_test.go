package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

// fromGitLab maps GitLab's states back; failed reads as failure (error maps to it too).
var fromGitLab = map[string]forge.StatusState{"pending": forge.StatusPending, "success": forge.StatusSuccess,
	"failed": forge.StatusFailure}

// readBack reads statuses and notes from the fake's records.
func readBack(srv *fakegitlab.Server) forgetest.ReadBack {
	return forgetest.ReadBack{
		Statuses: func(t *testing.T, sha string) []forge.CommitStatus {
			var out []forge.CommitStatus
			for _, s := range srv.Statuses(sha) {
				state, ok := fromGitLab[s.State]
				require.True(t, ok, "unexpected GitLab state %q", s.State)
				out = append(out, forge.CommitStatus{State: state, Context: s.Name, Description: s.Description, TargetURL: s.TargetURL})
			}
			return out
		},
		Comments: func(t *testing.T, mr forge.MergeRequest) []string {
			iid, err := strconv.Atoi(mr.ID)
			require.NoError(t, err)
			return srv.Notes(iid)
		},
	}
}

func TestReport(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, srv := newFake(t)
		return f, readBack(srv)
	})
}

// One note per page makes Comment follow X-Next-Page to find an earlier marker.
func TestReportPaginated(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, srv := newFake(t, fakegitlab.WithMaxPerPage(1))
		return f, readBack(srv)
	})
}

func TestSetStatusMapsStatesAndReplacesFinishedOnes(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)
	for _, st := range []forge.StatusState{forge.StatusPending, forge.StatusError, forge.StatusSuccess, forge.StatusFailure} {
		require.NoError(t, f.SetStatus(ctx, head, forge.CommitStatus{State: st, Context: "slipway/web"}), st)
	}
	assert.Equal(t, []fakegitlab.CommitStatus{{Name: "slipway/web", State: "failed"}}, srv.Statuses(head))
	assert.Equal(t, 3, srv.StatusCount(head), "pending moved to failed; success and failed each replaced a finished status")
}

func TestCommentListsEveryPage(t *testing.T) {
	f, srv := newFake(t, fakegitlab.WithMaxPerPage(2))
	ctx := context.Background()
	mr, err := f.Open(ctx, forgetest.Change("web/op-1", "apps/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, f.Comment(ctx, mr, "k"+strconv.Itoa(i), "note "+strconv.Itoa(i)))
	}
	before := len(srv.Requests())
	require.NoError(t, f.Comment(ctx, mr, "k0", "again")) // the oldest note is on the last page (newest first)
	var lists int
	for _, r := range srv.Requests()[before:] {
		if strings.HasPrefix(r, "GET ") && strings.Contains(r, "/notes") {
			lists++
		}
	}
	assert.Equal(t, 3, lists, "five notes, two per page")
	assert.Len(t, srv.Notes(1), 5)
}

func TestReportErrorsAreTyped(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)

	err = f.Comment(ctx, forge.MergeRequest{ID: "slipway/web/op-1"}, "k", "b")
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "a branch is no IID: got %v", err)
	assert.Equal(t, "mr.ID", invalid.Field)

	srv.RateLimit(1, 5*time.Second)
	err = f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusSuccess, Context: "ci"})
	var rl *forge.RateLimitError
	require.True(t, errors.As(err, &rl), "got %v", err)
	assert.Equal(t, 5*time.Second, rl.RetryAfter)

	srv.RateLimit(1, time.Second)
	err = f.Comment(ctx, forge.MergeRequest{ID: "1"}, "k", "b")
	require.True(t, errors.As(err, &rl), "got %v", err)
	assert.False(t, forge.IsNonRetryable(err))
}
