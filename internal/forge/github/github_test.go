package github

import (
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestNewNamesTheBadField(t *testing.T) {
	cases := map[string]struct {
		owner, repo string
		opts        []Option
		field       string
	}{
		"empty owner":    {"", "r", nil, "owner"},
		"owner slash":    {"a/b", "r", nil, "owner"},
		"empty repo":     {"o", "", nil, "repo"},
		"dot repo":       {"o", "..", nil, "repo"},
		"bad base":       {"o", "r", []Option{WithBaseBranch("a..b")}, "base branch"},
		"empty base":     {"o", "r", []Option{WithBaseBranch("")}, "base branch"},
		"token newline":  {"o", "r", []Option{WithToken("abc\n")}, "SLIPWAY_GITHUB_TOKEN"},
		"base URL":       {"o", "r", []Option{WithBaseURL("ftp://x")}, "base URL"},
		"base URL empty": {"o", "r", []Option{WithBaseURL("")}, "base URL"},
	}
	for name, tc := range cases {
		_, err := New(tc.owner, tc.repo, tc.opts...)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: got %v", name, err)
		assert.Equal(t, tc.field, invalid.Field, name)
		assert.Contains(t, err.Error(), tc.field, name)
	}
}

func TestRepoURLIsTheHTTPSCloneURL(t *testing.T) {
	cases := map[string]string{
		"":                                 "https://github.com/acme/gitops.git",
		"https://ghe.example.com/api/v3/":  "https://ghe.example.com/acme/gitops.git",
		"https://ghe.example.com/api/v3":   "https://ghe.example.com/acme/gitops.git",
		"http://127.0.0.1:8080/":           "http://127.0.0.1:8080/acme/gitops.git",
		"https://proxy.example.com/github": "https://proxy.example.com/github/acme/gitops.git",
	}
	for base, want := range cases {
		var opts []Option
		if base != "" {
			opts = append(opts, WithBaseURL(base))
		}
		f, err := New("acme", "gitops", opts...)
		require.NoError(t, err, base)
		assert.Equal(t, want, f.RepoURL(), base)
		assert.Equal(t, "github", f.Name())
	}
}

func TestBaseURLGetsATrailingSlash(t *testing.T) {
	f, err := New("acme", "gitops", WithBaseURL("https://ghe.example.com/api/v3"))
	require.NoError(t, err)
	want, _ := url.Parse("https://ghe.example.com/api/v3/")
	assert.Equal(t, want, f.client.BaseURL)
}
