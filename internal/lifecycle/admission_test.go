package lifecycle

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A held instance rejects as busy, naming the holder and the way out; a teardown may stop a
// stoppable provision or deploy instead; an idle one is checked against its state.
func TestAdmitRejectsBusyAndDisallowedButLetsATeardownStopARunningDeploy(t *testing.T) {
	since := time.Date(2026, 11, 25, 1, 2, 3, 0, time.FixedZone("CET", 3600))
	gated := Admission{Ref: "acme/web", State: Deployed, Holder: GateHolder("acme/web", OpDeploy, "network, dns", since)}
	err := Admit(gated, OpPlan)
	var busy *BusyError
	require.True(t, errors.As(err, &busy), "%v", err)
	require.EqualError(t, err, "acme/web is busy: deploy waiting at scheduling gates (network, dns) since 2026-11-25T00:02:03Z; "+
		"plan is rejected, not queued — remove the gates, or slipway cancel acme/web")

	running := Admission{Ref: "acme/web", State: Deploying, Holder: &Holder{What: "deploy 3-x is running", Remedy: "wait"}, CanStop: true}
	require.True(t, errors.As(Admit(running, OpDeploy), &busy), "a deploy does not stop a deploy")
	require.NoError(t, Admit(running, OpDestroy), "a teardown stops the running deploy first (PreTerminate)")
	running.CanStop = false
	require.True(t, errors.As(Admit(running, OpDestroy), &busy), "one already being stopped is not stopped again")

	idle := Admission{Ref: "acme/web", State: Archived}
	err = Admit(idle, OpArchive)
	var na *NotAllowedError
	require.True(t, errors.As(err, &na), "%v", err)
	require.False(t, errors.As(err, &busy))
	require.ErrorContains(t, err, "acme/web: archive is not allowed in state Archived")
	require.NoError(t, Admit(idle, OpDeploy))
}

func TestAdmitRecreateTakesOnlyAPlainDeployOfADeployedInstance(t *testing.T) {
	require.NoError(t, AdmitRecreate("acme/web", Deployed, OpDeploy, false))
	require.EqualError(t, AdmitRecreate("acme/web", Deployed, OpArchive, false), "acme/web: recreate goes with deploy, not archive")
	require.EqualError(t, AdmitRecreate("acme/web", ConfigurationCreated, OpDeploy, false),
		"acme/web: recreate replaces a Deployed instance's workload, as it is; the instance is ConfigurationCreated")
	require.ErrorContains(t, AdmitRecreate("acme/web", Deployed, OpDeploy, true), "recreate takes no config")
}
