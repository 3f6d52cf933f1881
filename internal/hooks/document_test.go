package hooks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// BOSH's next state rides in new fields: a hook that reads only state, app and data reads what it
// always did, and one recorded before the fields existed says nothing of them.
func TestDocumentCarriesBOSHStatesCompatibly(t *testing.T) {
	c := Call{Spec: Spec{Name: Drain}, Operation: "deploy", Tenant: "acme", Name: "db",
		Current: contract.HookState{State: "Deployed", App: "running", Data: "available",
			Deployment: contract.HookDeploymentUpdated, Instance: contract.HookInstanceRunning, Disk: contract.HookDiskAttached},
		Next: contract.HookState{State: "Deployed", App: "running", Data: "available", Operation: "deploy",
			Deployment: contract.HookDeploymentUpdated, Instance: contract.HookInstanceRecreated, Disk: contract.HookDiskUnavailable,
			Replaced: []string{"aws_db_instance.main"}}}
	doc, err := documentFor(c, 1)
	require.NoError(t, err)
	require.JSONEq(t, `{"hook":"drain","operation":"deploy","tenant":"acme","name":"db","call":1,
		"current":{"state":"Deployed","app":"running","data":"available","deployment":"updated","instance":"running","disk":"attached"},
		"next":{"state":"Deployed","app":"running","data":"available","operation":"deploy",
			"deployment":"updated","instance":"recreated","disk":"unavailable","replaced":["aws_db_instance.main"]},
		"outputs":{}}`, string(doc))

	var old contract.HookState
	require.NoError(t, json.Unmarshal([]byte(`{"state":"Archived","app":"stopped","data":"available"}`), &old))
	out, err := json.Marshal(old)
	require.NoError(t, err)
	require.JSONEq(t, `{"state":"Archived","app":"stopped","data":"available"}`, string(out))
}
