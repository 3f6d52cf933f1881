package gitlab

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

// newFake starts a fake GitLab and a Forge on it; both stop with the test.
func newFake(t *testing.T, opts ...fakegitlab.Option) (*Forge, *fakegitlab.Server) {
	t.Helper()
	srv := fakegitlab.New(opts...)
	t.Cleanup(srv.Close)
	f, err := New(srv.URL, srv.Project, WithToken(srv.Token))
	require.NoError(t, err)
	return f, srv
}
