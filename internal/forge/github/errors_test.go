package github

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

func TestPrimaryRateLimitCarriesTheWait(t *testing.T) {
	f, srv := newFake(t)
	srv.RateLimitNext(1)
	_, err := f.Head(context.Background())
	var rl *forge.RateLimitError
	require.True(t, errors.As(err, &rl), "want *forge.RateLimitError, got %v", err)
	assert.Greater(t, rl.RetryAfter, fakegithub.RateLimitReset-time.Minute)
	assert.LessOrEqual(t, rl.RetryAfter, fakegithub.RateLimitReset)
	assert.Contains(t, err.Error(), "API rate limit exceeded")
	assert.False(t, forge.IsNonRetryable(err))
}

func TestSecondaryRateLimitCarriesRetryAfter(t *testing.T) {
	f, srv := newFake(t)
	srv.SecondaryRateLimitNext(1, 7*time.Second)
	_, err := f.ListOpen(context.Background(), "slipway/")
	var rl *forge.RateLimitError
	require.True(t, errors.As(err, &rl), "want *forge.RateLimitError, got %v", err)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	assert.False(t, forge.IsNonRetryable(err))

	_, err = f.ListOpen(context.Background(), "slipway/")
	assert.NoError(t, err, "the limit is over after one request")
}

func TestBadTokenIsNonRetryableAndNamesTheVariable(t *testing.T) {
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	for name, opts := range map[string][]Option{
		"wrong token": {WithToken("not-" + srv.Token)},
		"no token":    nil,
	} {
		f, err := New(testOwner, testRepo, append(opts, WithBaseURL(srv.URL))...)
		require.NoError(t, err, name)
		_, err = f.Head(context.Background())
		var auth *AuthError
		require.True(t, errors.As(err, &auth), "%s: want *AuthError, got %v", name, err)
		assert.Equal(t, 401, auth.Status, name)
		assert.Contains(t, err.Error(), "SLIPWAY_GITHUB_TOKEN", name)
		assert.Contains(t, err.Error(), "Bad credentials", name)
		assert.True(t, forge.IsNonRetryable(err), name)
	}
}

func TestMissingRepoIsNotFound(t *testing.T) {
	srv := fakegithub.New(t)
	f, err := New("acme", "nope", WithBaseURL(srv.URL), WithToken(srv.Token))
	require.NoError(t, err)
	for name, call := range map[string]func() error{
		"head":    func() error { _, err := f.Head(context.Background()); return err },
		"readdir": func() error { _, err := f.ReadDir(context.Background(), "", "apps"); return err },
		"list":    func() error { _, err := f.ListOpen(context.Background(), ""); return err },
	} {
		err := call()
		var nf *forge.NotFoundError
		require.True(t, errors.As(err, &nf), "%s: want *forge.NotFoundError, got %v", name, err)
		assert.Contains(t, err.Error(), "acme/nope", name)
		assert.True(t, forge.IsNonRetryable(err), name)
	}
}

func TestMissingBaseBranchIsNotFound(t *testing.T) {
	f, _ := newFake(t, WithBaseBranch("production"))
	_, err := f.Head(context.Background())
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "got %v", err)
	assert.Contains(t, err.Error(), "base branch production")
}
