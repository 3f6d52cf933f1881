package gitea

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

var repoSeq atomic.Int64

// newRepo creates a fresh repository on s (initial commit on main) and a forge over it.
func newRepo(t *testing.T, s *giteaserver.Server, opts ...Option) *Forge {
	t.Helper()
	name := fmt.Sprintf("gitops-%d", repoSeq.Add(1))
	s.CreateRepo(t, name)
	f, err := New(s.URL, s.AdminUser, name, append([]Option{WithToken(s.Token)}, opts...)...)
	require.NoError(t, err)
	return f
}
