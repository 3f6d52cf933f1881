package e2e

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// A deadline whose batchSize is huge: carol posts batchSize MaxInt64 through the server with two
// instances behind. The wave count (len+size-1)/size overflowed to a negative, so the deadline
// was recorded with no wave at all, nothing missed and nothing started, answered 200: a platform
// decision that silently re-pins no one. Now a batch larger than those behind is one wave of all.
func TestAttackDeadlineHugeBatchPlansNoWave(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	carol := signIn(t, p, "carol")

	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	for _, n := range []string{"acme/a", "acme/b"} {
		e.MustCLI(0, "create", n, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	}
	require.Eventually(t, func() bool {
		items, err := e.Client.List(t.Context(), client.ListFilter{Stack: "example"})
		return err == nil && len(items) == 2
	}, 20*time.Second, 200*time.Millisecond, "visibility lists both instances")

	by := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second).Format(time.RFC3339)
	code, body := httpAs(t, http.MethodPost, url+"/v1/stacks/example/deadlines", carol,
		`{"min":"1.0.0","by":"`+by+`","batchSize":`+strconv.Itoa(math.MaxInt64)+`}`)
	require.Equal(t, http.StatusOK, code, body)
	var set client.DeadlineSet
	require.NoError(t, json.Unmarshal([]byte(body), &set))
	require.Equal(t, 2, set.Behind, body)
	require.Len(t, set.Deadline.Waves, 1, "one wave holds both instances behind: %s", body)
	require.ElementsMatch(t, []string{"acme/a", "acme/b"}, set.Deadline.Waves[0].Instances)
	require.Len(t, set.Rollouts, 1, "the wave was started: %s", body)
}
