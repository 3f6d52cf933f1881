package argocd

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/deploy"
)

// A stack's sync: turns ArgoCD's automated sync with self-heal on, and off again; a stack that
// says nothing leaves an operator's sync policy alone. Sync options survive either way.
func TestSyncPolicyFollowsTheStack(t *testing.T) {
	spec := func() map[string]any {
		obj, err := decodeObject([]byte(`{"metadata":{"name":"acme-web"},"spec":{"syncPolicy":{"syncOptions":["RespectIgnoreDifferences=true"],
		  "automated":{"prune":true}}}}`))
		require.NoError(t, err)
		return obj
	}
	d := NewDeployer(newFake(t).client(t))
	for _, tc := range []struct {
		sync *deploy.Sync
		want string
	}{
		{nil, `{"syncOptions":["RespectIgnoreDifferences=true"],"automated":{"prune":true}}`},
		{&deploy.Sync{Automated: true, SelfHeal: true}, `{"syncOptions":["RespectIgnoreDifferences=true"],"automated":{"prune":false,"selfHeal":true}}`},
		{&deploy.Sync{}, `{"syncOptions":["RespectIgnoreDifferences=true"]}`},
	} {
		app := testApp()
		app.Sync = tc.sync
		obj := spec()
		setOwnFields(obj, d.desired(app))
		got, err := json.Marshal(obj["spec"].(map[string]any)["syncPolicy"])
		require.NoError(t, err)
		require.JSONEq(t, tc.want, string(got))
	}
	app := testApp()
	app.Sync = &deploy.Sync{Automated: true, SelfHeal: true}
	require.Equal(t, &SyncPolicy{Automated: &SyncPolicyAutomated{SelfHeal: true}}, d.desired(app).Spec.SyncPolicy, "created with it, too")
}
