package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// slipway watch follows an operation someone else started, step by step, to its outcome.
func TestWatchFollowsARunningOperationToItsEnd(t *testing.T) {
	e, _ := instantEnv(t, slowDeploys(3*time.Second))

	ctx := context.Background()
	ref := contract.Ref{Tenant: "watch", Name: "web"}
	e.MustCLI(0, "create", ref.String(), "-f", "../../examples/instances/web.yaml", "--wait")
	h, err := e.Client.Submit(ctx, ref, lifecycle.OpDeploy, contract.OperationRequest{Actor: "someone-else"}, "")
	require.NoError(t, err)

	out := e.MustCLI(0, "watch", ref.String()).Stdout
	assert.Contains(t, out, "watch/web: deploy ")
	// Started by the verified requester; the request's own word for its sender is only a note.
	assert.Regexp(t, `started by \S+ \(someone-else\)`, out)
	assert.Regexp(t, `deploy-app\s+running`, out)
	assert.Regexp(t, `deploy-app\s+done \(\d`, out, "an ended step shows its elapsed time")
	assert.Contains(t, out, "watch/web is Deployed (deploy succeeded)")
	res, err := h.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, contract.ResultSucceeded, res.Result)

	idle := e.MustCLI(0, "watch", ref.String()).Stdout
	assert.Equal(t, "watch/web is Deployed; no operation is running (last: deploy succeeded)\n", idle)

	bad := e.MustCLI(2, "watch", "not a ref")
	assert.Contains(t, bad.Stderr, "TENANT/NAME")
	e.MustCLI(2, "watch", "watch/nobody")
}
