package github

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

const (
	testOwner = "acme"
	testRepo  = "gitops"
)

// newFake starts a fake GitHub with acme/gitops on main and a forge over it.
func newFake(t *testing.T, opts ...Option) (*Forge, *fakegithub.Server) {
	t.Helper()
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	f, err := New(testOwner, testRepo, append([]Option{WithBaseURL(srv.URL), WithToken(srv.Token)}, opts...)...)
	require.NoError(t, err)
	return f, srv
}
