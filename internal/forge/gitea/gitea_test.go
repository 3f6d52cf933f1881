package gitea

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestNewNamesBadInput(t *testing.T) {
	cases := map[string]struct {
		url, owner, repo string
		opts             []Option
		field            string
	}{
		"no scheme":   {"git.example.com", "o", "r", []Option{WithToken("t")}, "base URL"},
		"empty owner": {"https://g.example", "", "r", []Option{WithToken("t")}, "owner"},
		"slash repo":  {"https://g.example", "o", "a/b", []Option{WithToken("t")}, "repo"},
		"no token":    {"https://g.example", "o", "r", []Option{WithToken("")}, "token"},
		"bad base":    {"https://g.example", "o", "r", []Option{WithToken("t"), WithBaseBranch("a..b")}, "base branch"},
	}
	for name, tc := range cases {
		_, err := New(tc.url, tc.owner, tc.repo, tc.opts...)
		var invalid *forge.InvalidError
		require.ErrorAs(t, err, &invalid, name)
		assert.Equal(t, tc.field, invalid.Field, name)
	}
	f, err := New("https://g.example/", "o", "r", WithToken("t"))
	require.NoError(t, err)
	assert.Equal(t, "gitea", f.Name())
	assert.Equal(t, "https://g.example/o/r.git", f.RepoURL())
}

func TestRateLimitCarriesTheWait(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "7")
	err := classifyStatus("op", "", http.StatusTooManyRequests, h, assert.AnError)
	var rl *forge.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	assert.False(t, forge.IsNonRetryable(err))

	h = http.Header{}
	h.Set("X-RateLimit-Remaining", "0")
	require.ErrorAs(t, classifyStatus("op", "", http.StatusForbidden, h, assert.AnError), &rl)
	var auth *AuthError
	require.ErrorAs(t, classifyStatus("op", "", http.StatusForbidden, http.Header{}, assert.AnError), &auth)
}
