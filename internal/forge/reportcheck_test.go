package forge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckStatus(t *testing.T) {
	sha1 := strings.Repeat("ab", 20)
	good := CommitStatus{State: StatusSuccess, Context: "slipway/acme/web", TargetURL: "https://slipway.example/runs/1"}

	got, err := CheckStatus(strings.ToUpper(sha1), good)
	require.NoError(t, err)
	assert.Equal(t, sha1, got, "the SHA comes back in lower case")
	sha256 := strings.Repeat("0f", 32)
	got, err = CheckStatus(sha256, CommitStatus{State: StatusPending, Context: "c"})
	require.NoError(t, err, "a SHA-256 commit and no target URL")
	assert.Equal(t, sha256, got)
	for _, st := range []StatusState{StatusPending, StatusSuccess, StatusFailure, StatusError} {
		s := good
		s.State = st
		_, err := CheckStatus(sha1, s)
		assert.NoError(t, err, st)
	}

	cases := map[string]struct {
		sha  string
		edit func(s *CommitStatus)
		want InvalidError
	}{
		"empty sha":     {"", func(*CommitStatus) {}, InvalidError{Field: "sha", Problem: "must be a full commit SHA (40 or 64 hex digits)"}},
		"branch":        {"main", func(*CommitStatus) {}, InvalidError{Field: "sha", Value: "main", Problem: "must be a full commit SHA (40 or 64 hex digits)"}},
		"short sha":     {sha1[:39], func(*CommitStatus) {}, InvalidError{Field: "sha", Value: sha1[:39], Problem: "must be a full commit SHA (40 or 64 hex digits)"}},
		"non-hex sha":   {strings.Repeat("g", 40), func(*CommitStatus) {}, InvalidError{Field: "sha", Value: strings.Repeat("g", 40), Problem: "must be a full commit SHA (40 or 64 hex digits)"}},
		"empty context": {sha1, func(s *CommitStatus) { s.Context = " " }, InvalidError{Field: "context", Problem: "must not be empty"}},
		"two lines":     {sha1, func(s *CommitStatus) { s.Context = "a\nb" }, InvalidError{Field: "context", Value: "a\nb", Problem: "must be one line without control characters"}},
		"unknown state": {sha1, func(s *CommitStatus) { s.State = "running" }, InvalidError{Field: "state", Value: "running", Problem: "must be pending, success, failure or error"}},
		"empty state":   {sha1, func(s *CommitStatus) { s.State = "" }, InvalidError{Field: "state", Problem: "must be pending, success, failure or error"}},
		"relative URL":  {sha1, func(s *CommitStatus) { s.TargetURL = "/runs/1" }, InvalidError{Field: "targetURL", Value: "/runs/1", Problem: "must be an absolute http(s) URL"}},
		"ftp URL":       {sha1, func(s *CommitStatus) { s.TargetURL = "ftp://x/y" }, InvalidError{Field: "targetURL", Value: "ftp://x/y", Problem: "must be an absolute http(s) URL"}},
		"no host":       {sha1, func(s *CommitStatus) { s.TargetURL = "https:///x" }, InvalidError{Field: "targetURL", Value: "https:///x", Problem: "must be an absolute http(s) URL"}},
	}
	for name, tc := range cases {
		s := good
		tc.edit(&s)
		got, err := CheckStatus(tc.sha, s)
		var ie *InvalidError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, tc.want, *ie, name)
		assert.Empty(t, got, name)
		assert.True(t, IsNonRetryable(err), name)
	}
}

func TestCheckComment(t *testing.T) {
	mr := MergeRequest{ID: "7", Branch: "slipway/acme/web/deploy-1"}
	require.NoError(t, CheckComment(mr, "plan-1", "Plan: 1 to add.\n"))
	require.NoError(t, CheckComment(MergeRequest{ID: "slipway/acme/web/deploy-1"}, "k", "b"), "what an ID looks like is the backend's")

	cases := map[string]struct {
		mr        MergeRequest
		key, body string
		want      InvalidError
	}{
		"empty mr.ID":  {MergeRequest{Branch: mr.Branch}, "k", "b", InvalidError{Field: "mr.ID", Problem: "must not be empty"}},
		"empty key":    {mr, "", "b", InvalidError{Field: "key", Problem: "must not be empty"}},
		"space key":    {mr, "a b", "b", InvalidError{Field: "key", Value: "a b", Problem: "must be one word without whitespace, > or --"}},
		"control key":  {mr, "a\x01", "b", InvalidError{Field: "key", Value: "a\x01", Problem: "must be one word without whitespace, > or --"}},
		"> in key":     {mr, "a>b", "b", InvalidError{Field: "key", Value: "a>b", Problem: "must be one word without whitespace, > or --"}},
		"-- in key":    {mr, "a--b", "b", InvalidError{Field: "key", Value: "a--b", Problem: "must be one word without whitespace, > or --"}},
		"empty body":   {mr, "k", "", InvalidError{Field: "body", Problem: "must not be empty"}},
		"blank body":   {mr, "k", " \n\t", InvalidError{Field: "body", Problem: "must not be empty"}},
		"NUL in body":  {mr, "k", "a\x00b", InvalidError{Field: "body", Problem: "must not contain NUL bytes"}},
		"marker body":  {mr, "k", "hi\n" + CommentMarker("other"), InvalidError{Field: "body", Problem: "must not contain a <!-- slipway:KEY --> marker"}},
		"marker start": {mr, "k", "<!-- slipway:", InvalidError{Field: "body", Problem: "must not contain a <!-- slipway:KEY --> marker"}},
	}
	for name, tc := range cases {
		err := CheckComment(tc.mr, tc.key, tc.body)
		var ie *InvalidError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, tc.want, *ie, name)
		assert.True(t, IsNonRetryable(err), name)
	}
}

func TestMarker(t *testing.T) {
	assert.Equal(t, "<!-- slipway:plan-1 -->", CommentMarker("plan-1"))
	assert.Equal(t, "Plan: ok.\n\n<!-- slipway:plan-1 -->", WithMarker("Plan: ok.\r\n\n", "plan-1"), "trailing newlines are replaced by one blank line")
	assert.Equal(t, "x\n\n<!-- slipway:k -->", WithMarker("x", "k"))
	require.NoError(t, CheckComment(MergeRequest{ID: "1"}, "k", "body"))
	assert.Error(t, CheckComment(MergeRequest{ID: "1"}, "k", WithMarker("body", "k")), "a marked body cannot be posted again as a body")
}
