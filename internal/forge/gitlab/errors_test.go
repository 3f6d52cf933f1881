package gitlab

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

func TestBadTokenIsNonRetryableAndNamesTheVariable(t *testing.T) {
	srv := fakegitlab.New()
	t.Cleanup(srv.Close)
	_, err := New(srv.URL, srv.Project, WithToken("wrong"))
	var auth *AuthError
	require.True(t, errors.As(err, &auth), "want *AuthError, got %v", err)
	assert.Equal(t, 401, auth.Status)
	assert.Contains(t, err.Error(), "SLIPWAY_GITLAB_TOKEN")
	assert.Equal(t, "401 Unauthorized", auth.Message)
	assert.True(t, forge.IsNonRetryable(err))
}

func TestMissingProjectIsNotFound(t *testing.T) {
	srv := fakegitlab.New()
	t.Cleanup(srv.Close)
	_, err := New(srv.URL, "nobody/nothing", WithToken(srv.Token))
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "want *forge.NotFoundError, got %v", err)
	assert.Contains(t, err.Error(), "nobody/nothing")
	assert.True(t, forge.IsNonRetryable(err))
}

func TestRateLimitCarriesTheWait(t *testing.T) {
	f, srv := newFake(t)
	srv.RateLimit(1, 42*time.Second)
	_, err := f.Head(context.Background())
	var rl *forge.RateLimitError
	require.True(t, errors.As(err, &rl), "want *forge.RateLimitError, got %v", err)
	assert.Equal(t, 42*time.Second, rl.RetryAfter)
	assert.False(t, forge.IsNonRetryable(err), "a rate limit is retryable")

	_, err = f.Head(context.Background())
	require.NoError(t, err, "the limit lasts one request, and the client must not retry by itself")
}

func TestNewRejectsBadInput(t *testing.T) {
	cases := map[string]struct {
		url, project string
		opts         []Option
		field        string
	}{
		"no token":    {"http://127.0.0.1:1", "a/b", nil, "SLIPWAY_GITLAB_TOKEN"},
		"bad url":     {"gitlab.com", "a/b", []Option{WithToken("t")}, "base URL"},
		"no project":  {"http://127.0.0.1:1", "", []Option{WithToken("t")}, "project"},
		"bad base":    {"http://127.0.0.1:1", "a/b", []Option{WithToken("t"), WithBaseBranch("a..b")}, "base branch"},
		"bad timeout": {"http://127.0.0.1:1", "a/b", []Option{WithToken("t"), WithLookupTimeout(0)}, "lookup timeout"},
	}
	for name, tc := range cases {
		_, err := New(tc.url, tc.project, tc.opts...)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: want *forge.InvalidError, got %v", name, err)
		assert.Equal(t, tc.field, invalid.Field, name)
		assert.Contains(t, err.Error(), tc.field, name)
	}
}

func TestFastForwardProjectIsRefused(t *testing.T) {
	srv := fakegitlab.New(fakegitlab.WithMergeMethod("ff"))
	t.Cleanup(srv.Close)
	_, err := New(srv.URL, srv.Project, WithToken(srv.Token))
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "want *forge.InvalidError, got %v", err)
	assert.Equal(t, "merge_method", invalid.Field)
}
