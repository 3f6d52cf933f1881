package gitlab

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNameAndRepoURL(t *testing.T) {
	f, srv := newFake(t)
	assert.Equal(t, "gitlab", f.Name())
	assert.Equal(t, srv.URL+"/"+srv.Project+".git", f.RepoURL())
	head, err := f.Head(context.Background())
	require.NoError(t, err)
	assert.Equal(t, srv.BranchHead("main"), head)
}
