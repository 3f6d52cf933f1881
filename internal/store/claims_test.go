package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// claimsContract: the first claimer holds a request, claims it again on a retry, and every other
// claimer, however many race, is told who holds it.
func claimsContract(t *testing.T, c RequestClaims) {
	ctx := context.Background()
	h, err := c.ClaimRequest(ctx, "gitea/abc", "gitea/d1#0")
	require.NoError(t, err)
	require.Equal(t, "gitea/d1#0", h)
	h, err = c.ClaimRequest(ctx, "gitea/abc", "gitea/d1#0")
	require.NoError(t, err)
	require.Equal(t, "gitea/d1#0", h, "a retry of the first claimer still holds it")
	h, err = c.ClaimRequest(ctx, "gitea/abc", "gitea/d2#0")
	require.NoError(t, err)
	require.Equal(t, "gitea/d1#0", h, "a replay under a new delivery ID is told who came first")
	_, err = c.ClaimRequest(ctx, "", "x")
	require.Error(t, err)

	var wg sync.WaitGroup
	holders := make([]string, 8)
	for i := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := c.ClaimRequest(ctx, "gitea/race", string(rune('a'+i)))
			require.NoError(t, err)
			holders[i] = h
		}()
	}
	wg.Wait()
	for _, h := range holders {
		require.Equal(t, holders[0], h, "one claimer wins a race")
	}
}

func TestClaimDirHoldsEachRequestOnce(t *testing.T) {
	claimsContract(t, ClaimDir(filepath.Join(t.TempDir(), ClaimsDirName)))
}

func TestRequestClaimsInTheSharedStore(t *testing.T) {
	pg := postgres.Start(t)
	k, _ := keys(t, "k1")
	claimsContract(t, open(t, pg.CreateDB(t, "claims"), k))
}
