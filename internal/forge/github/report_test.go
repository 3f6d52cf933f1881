package github

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
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// readBack reads statuses and comments from the fake's records.
func readBack(srv *fakegithub.Server) forgetest.ReadBack {
	return forgetest.ReadBack{
		Statuses: func(t *testing.T, sha string) []forge.CommitStatus {
			var out []forge.CommitStatus
			for _, s := range srv.Statuses(testOwner, testRepo, sha) {
				out = append(out, forge.CommitStatus{State: forge.StatusState(s.State), Context: s.Context,
					Description: s.Description, TargetURL: s.TargetURL})
			}
			return out
		},
		Comments: func(t *testing.T, mr forge.MergeRequest) []string {
			n, err := strconv.Atoi(mr.ID)
			require.NoError(t, err)
			return srv.Comments(testOwner, testRepo, n)
		},
	}
}

func TestReport(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, srv := newFake(t)
		return f, readBack(srv)
	})
}

// A page size of one makes Comment follow Link pagination to find an earlier marker.
func TestReportOnePerPage(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, srv := newFake(t)
		f.pageSize = 1
		return f, readBack(srv)
	})
}

func TestCommentFindsTheMarkerOnALaterPage(t *testing.T) {
	f, srv := newFake(t)
	f.pageSize = 2
	ctx := context.Background()
	mr, err := f.Open(ctx, forgetest.Change("web/op-1", "apps/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, f.Comment(ctx, mr, "k"+strconv.Itoa(i), "comment "+strconv.Itoa(i)))
	}
	lists := srv.Calls("GET /repos/{owner}/{repo}/issues/{number}/comments")
	require.NoError(t, f.Comment(ctx, mr, "k4", "again"))
	n, err := strconv.Atoi(mr.ID)
	require.NoError(t, err)
	assert.Len(t, srv.Comments(testOwner, testRepo, n), 5)
	assert.Equal(t, lists+3, srv.Calls("GET /repos/{owner}/{repo}/issues/{number}/comments"), "five comments, two per page")
}

func TestSetStatusTruncatesTheDescription(t *testing.T) {
	f, srv := newFake(t)
	head, err := f.Head(context.Background())
	require.NoError(t, err)
	long := strings.Repeat("é", maxDescription+10)
	require.NoError(t, f.SetStatus(context.Background(), strings.ToUpper(head),
		forge.CommitStatus{State: forge.StatusError, Context: "ci", Description: long}))
	got := srv.Statuses(testOwner, testRepo, head)
	require.Len(t, got, 1)
	assert.Equal(t, strings.Repeat("é", maxDescription), got[0].Description)
	assert.Equal(t, "error", got[0].State)
}

func TestReportErrorsAreTyped(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)

	err = f.Comment(ctx, forge.MergeRequest{ID: "slipway/web/op-1"}, "k", "b")
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "a branch is no PR number: got %v", err)
	assert.Equal(t, "mr.ID", invalid.Field)

	srv.SecondaryRateLimitNext(1, 9*time.Second)
	err = f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusSuccess, Context: "ci"})
	var rl *forge.RateLimitError
	require.True(t, errors.As(err, &rl), "got %v", err)
	assert.False(t, forge.IsNonRetryable(err))

	other, err := New("acme", "nope", WithBaseURL(srv.URL), WithToken(srv.Token))
	require.NoError(t, err)
	err = other.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusSuccess, Context: "ci"})
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "missing repository: got %v", err)
	assert.Contains(t, err.Error(), "acme/nope")

	bad, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithToken("wrong"))
	require.NoError(t, err)
	err = bad.Comment(ctx, forge.MergeRequest{ID: "1"}, "k", "b")
	var auth *AuthError
	require.True(t, errors.As(err, &auth), "got %v", err)
	assert.True(t, forge.IsNonRetryable(err))
}
