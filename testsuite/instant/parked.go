package instant

import (
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
)

// Parked is the input of an instance workflow that starts Deployed and Ready behind the instant
// deployer, as a continue-as-new would carry it, with the fingerprint its deploy recorded: an
// idle instance without running its lifecycle first.
func Parked(ref contract.Ref, observer string, now time.Time) contract.InstanceInput {
	app := Healthy(ref)
	programmed := lifecycle.Condition{Type: lifecycle.CondProgrammed, Status: lifecycle.ConditionTrue, Reason: "Applied", ObservedAt: now}
	running := observe.Running(app, now)
	st := contract.InstanceState{Ref: ref, State: lifecycle.Deployed, Stack: "example", Deployer: "instant",
		Started: true, Epoch: "bench", Resources: app.Resources,
		Conditions: []lifecycle.Condition{programmed, running, lifecycle.ReadyFrom(programmed, running)},
		Observed:   &contract.Observed{At: now, Fingerprint: observe.Fingerprint(app), Observer: observer}}
	return contract.InstanceInput{Ref: ref, State: &st}
}
