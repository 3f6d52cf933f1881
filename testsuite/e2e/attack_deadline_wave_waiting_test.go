package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// A deadline wave waiting for its window (a workflow start held by Temporal's StartDelay) is read
// before the control is decided: bob (tenant other) aborting acme's waiting wave got a 500
// naming Temporal's state ("Workflow task is not scheduled yet."), not the policy's 403, and so
// learned that the ID is a wave still waiting (an unknown ID is 404). Now the wave's tenant (its
// search attribute) is decided first: bob gets the policy's 403, and carol a 409 saying it waits.
func TestAttackWaitingDeadlineWaveLeaksBeforeThePolicy(t *testing.T) {
	opens := time.Now().UTC().Truncate(time.Hour).Add(3 * time.Hour)
	windowPolicy(t, []map[string]any{{"name": "acme-hours", "start": fmt.Sprintf("0 %d * * *", opens.Hour()),
		"duration": "1h", "tenants": []string{"acme"}}})
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	bob, carol := signIn(t, p, "bob"), signIn(t, p, "carol")

	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	e.MustCLI(0, "create", "acme/a", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"),
		"--override-window", "--reason", "set up the test", "--wait")
	require.Eventually(t, func() bool {
		items, err := e.Client.List(t.Context(), client.ListFilter{Stack: "example"})
		return err == nil && len(items) == 1
	}, 20*time.Second, 200*time.Millisecond, "visibility lists acme/a")
	by := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second).Format(time.RFC3339)
	code, body := httpAs(t, http.MethodPost, url+"/v1/stacks/example/deadlines", carol, `{"min":"1.0.0","by":"`+by+`"}`)
	require.Equal(t, http.StatusOK, code, body)
	var set client.DeadlineSet
	require.NoError(t, json.Unmarshal([]byte(body), &set))
	require.Len(t, set.Rollouts, 1, body)

	code, body = httpAs(t, http.MethodPost, url+"/v1/rollouts/"+set.Rollouts[0]+"/abort", bob, `{"reason":"x"}`)
	require.Equal(t, http.StatusForbidden, code, "bob is refused by the policy, told nothing of the wave: %s", body)
	require.Contains(t, body, "bob may not act on rollout "+set.Rollouts[0]+", or it does not exist", "the refusal names neither the tenant nor whether the wave exists")
	code, body = httpAs(t, http.MethodPost, url+"/v1/rollouts/"+set.Rollouts[0]+"/undo", bob, `{"id":"bob-undo"}`)
	require.Equal(t, http.StatusForbidden, code, "nor through an undo: %s", body)
	code, body = httpAs(t, http.MethodPost, url+"/v1/rollouts/"+set.Rollouts[0]+"/pause", carol, `{"reason":"hold it"}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.Contains(t, body, "rollout "+set.Rollouts[0]+" has not started yet: its start waits")
}
