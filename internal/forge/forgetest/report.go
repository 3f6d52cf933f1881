package forgetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Reporting is a forge that also reports outcomes: what Report tests.
type Reporting interface {
	forge.Forge
	forge.Reporter
}

// ReadBack reads what a forge reported the backend's own way (a fake's records, the forge's
// real API, git notes), because forge.Reporter itself only writes.
type ReadBack struct {
	// Statuses returns the statuses the forge shows on sha now: the latest one per context.
	Statuses func(t *testing.T, sha string) []forge.CommitStatus
	// Comments returns the bodies of slipway's comments on mr, oldest first, markers included.
	Comments func(t *testing.T, mr forge.MergeRequest) []string
}

// Marker is the hidden line that makes Comment idempotent per key: forge.CommentMarker.
func Marker(key string) string { return forge.CommentMarker(key) }

// Report runs the forge.Reporter contract as subtests. newForge returns a forge over a fresh
// repository (as Contract's does) and the ReadBack bound to that repository.
func Report(t *testing.T, newForge func(t *testing.T) (Reporting, ReadBack)) {
	t.Run("StatusIsReplacedPerContext", func(t *testing.T) { statusReplaced(t, newForge) })
	t.Run("CommentOncePerKey", func(t *testing.T) { commentOncePerKey(t, newForge) })
	t.Run("MissingTargets", func(t *testing.T) { missingTargets(t, newForge) })
	t.Run("BadReportInput", func(t *testing.T) { badReportInput(t, newForge) })
}

func statusReplaced(t *testing.T, newForge func(t *testing.T) (Reporting, ReadBack)) {
	f, rb := newForge(t)
	ctx := context.Background()
	mr := OpenAndMerge(t, f, Change("report/provision-1", "contract/report", map[string][]byte{"a": []byte("1")}))
	sha := mr.MergeSHA
	assert.Empty(t, rb.Statuses(t, sha), "a fresh commit has no status")

	planning := forge.CommitStatus{State: forge.StatusPending, Context: "slipway/contract/web",
		Description: "planning", TargetURL: "https://slipway.example/runs/1"}
	require.NoError(t, f.SetStatus(ctx, sha, planning))
	require.NoError(t, f.SetStatus(ctx, sha, planning), "setting the same status again is a no-op")
	assert.Equal(t, []forge.CommitStatus{planning}, rb.Statuses(t, sha))

	applied := forge.CommitStatus{State: forge.StatusSuccess, Context: planning.Context,
		Description: "applied", TargetURL: "https://slipway.example/runs/2"}
	failed := forge.CommitStatus{State: forge.StatusFailure, Context: "slipway/contract/db", Description: "plan failed"}
	require.NoError(t, f.SetStatus(ctx, sha, applied))
	require.NoError(t, f.SetStatus(ctx, sha, failed))
	assert.ElementsMatch(t, []forge.CommitStatus{applied, failed}, rb.Statuses(t, sha),
		"the same context is replaced, another one is added")

	require.NoError(t, f.SetStatus(ctx, sha, applied), "a retry after the replacement")
	require.NoError(t, f.SetStatus(ctx, mr.HeadSHA, planning), "any commit can carry a status")
	assert.ElementsMatch(t, []forge.CommitStatus{applied, failed}, rb.Statuses(t, sha))
	assert.Equal(t, []forge.CommitStatus{planning}, rb.Statuses(t, mr.HeadSHA))
}

func commentOncePerKey(t *testing.T, newForge func(t *testing.T) (Reporting, ReadBack)) {
	f, rb := newForge(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, Change("report/update-2", "contract/report", map[string][]byte{"a": []byte("2")}))
	require.NoError(t, err)
	assert.Empty(t, rb.Comments(t, mr))

	plan := "Plan: 1 to add, 0 to change, 0 to destroy.\n"
	require.NoError(t, f.Comment(ctx, mr, "plan-1", plan))
	require.NoError(t, f.Comment(ctx, mr, "plan-1", plan), "a retry with the same key posts nothing")
	comments := rb.Comments(t, mr)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0], strings.TrimSpace(plan))
	assert.True(t, strings.HasSuffix(strings.TrimSpace(comments[0]), Marker("plan-1")), "the marker ends the comment: %q", comments[0])

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	require.NoError(t, f.Comment(ctx, merged, "plan-1", "a different body"), "the key decides, even across the merge")
	assert.Len(t, rb.Comments(t, merged), 1)

	require.NoError(t, f.Comment(ctx, merged, "apply-1", "Apply complete!"))
	require.NoError(t, f.Comment(ctx, merged, "apply-1", "Apply complete!"))
	comments = rb.Comments(t, merged)
	require.Len(t, comments, 2)
	assert.Contains(t, comments[0], Marker("plan-1"))
	assert.Contains(t, comments[1], "Apply complete!")
	assert.Contains(t, comments[1], Marker("apply-1"))
	assert.NotContains(t, comments[1], Marker("plan-1"))
}

func missingTargets(t *testing.T, newForge func(t *testing.T) (Reporting, ReadBack)) {
	f, _ := newForge(t)
	ctx := context.Background()
	ok := forge.CommitStatus{State: forge.StatusSuccess, Context: "slipway/contract/web"}
	err := f.SetStatus(ctx, strings.Repeat("de", 20), ok)
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "unknown commit: want *forge.NotFoundError, got %v", err)
	assert.True(t, forge.IsNonRetryable(err))

	err = f.Comment(ctx, forge.MergeRequest{ID: "999999", Branch: "slipway/contract/never-opened"}, "k", "body")
	require.True(t, errors.As(err, &nf), "unknown MR: want *forge.NotFoundError, got %v", err)
	assert.True(t, forge.IsNonRetryable(err))
}

func badReportInput(t *testing.T, newForge func(t *testing.T) (Reporting, ReadBack)) {
	f, rb := newForge(t)
	ctx := context.Background()
	mr := OpenAndMerge(t, f, Change("report/bad-1", "contract/report", map[string][]byte{"a": []byte("3")}))
	good := forge.CommitStatus{State: forge.StatusSuccess, Context: "slipway/contract/web"}
	statuses := map[string]struct {
		sha   string
		edit  func(s *forge.CommitStatus)
		field string
	}{
		"empty sha":      {"", func(*forge.CommitStatus) {}, "sha"},
		"branch as sha":  {"main", func(*forge.CommitStatus) {}, "sha"},
		"empty context":  {mr.MergeSHA, func(s *forge.CommitStatus) { s.Context = "" }, "context"},
		"two-line ctx":   {mr.MergeSHA, func(s *forge.CommitStatus) { s.Context = "a\nb" }, "context"},
		"unknown state":  {mr.MergeSHA, func(s *forge.CommitStatus) { s.State = "running" }, "state"},
		"empty state":    {mr.MergeSHA, func(s *forge.CommitStatus) { s.State = "" }, "state"},
		"relative URL":   {mr.MergeSHA, func(s *forge.CommitStatus) { s.TargetURL = "/runs/1" }, "targetURL"},
		"non-http(s)URL": {mr.MergeSHA, func(s *forge.CommitStatus) { s.TargetURL = "ftp://x/y" }, "targetURL"},
	}
	for name, tc := range statuses {
		s := good
		tc.edit(&s)
		assertInvalid(t, f.SetStatus(ctx, tc.sha, s), tc.field, name)
	}
	comments := map[string]struct {
		mr        forge.MergeRequest
		key, body string
		field     string
	}{
		"empty mr.ID":    {forge.MergeRequest{Branch: mr.Branch}, "k", "b", "mr.ID"},
		"empty key":      {mr, "", "b", "key"},
		"key with space": {mr, "a b", "b", "key"},
		"key ends HTML":  {mr, "a-->b", "b", "key"},
		"empty body":     {mr, "k", "", "body"},
		"blank body":     {mr, "k", " \n\t", "body"},
		"body w/ marker": {mr, "k", "hi\n" + Marker("other"), "body"},
	}
	for name, tc := range comments {
		assertInvalid(t, f.Comment(ctx, tc.mr, tc.key, tc.body), tc.field, name)
	}
	assert.Empty(t, rb.Statuses(t, mr.MergeSHA), "bad input reports nothing")
	assert.Empty(t, rb.Comments(t, mr), "bad input reports nothing")
}

func assertInvalid(t *testing.T, err error, field, name string) {
	t.Helper()
	var invalid *forge.InvalidError
	if !assert.True(t, errors.As(err, &invalid), "%s: want *forge.InvalidError, got %v", name, err) {
		return
	}
	assert.Equal(t, field, invalid.Field, name)
	assert.Contains(t, err.Error(), field, "%s: the message names the field", name)
	assert.True(t, forge.IsNonRetryable(err), name)
}
