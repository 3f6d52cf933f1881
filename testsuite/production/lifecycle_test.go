package production

import (
	"context"
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite/drive"
)

// opTimeout bounds one operation, kills and a lost Temporal node included.
const opTimeout = 6 * time.Minute

// step is one operation of the lifecycle every instance goes through.
type step struct {
	label    string
	op       lifecycle.Operation
	config   string
	deployed bool // the app is on the cluster after it, with the instance's Secret
}

func configV(replicas int) string {
	return fmt.Sprintf("stack: prod\nparameters:\n  greeting: hello\n  replicas: %d\n", replicas)
}

// lifecycleSteps: create, deploy, update twice, archive, deploy, destroy, deprovision.
var lifecycleSteps = []step{
	{label: "create", op: lifecycle.OpProvision, config: configV(1)},
	{label: "deploy", op: lifecycle.OpDeploy, deployed: true},
	{label: "update-1", op: lifecycle.OpDeploy, config: configV(2), deployed: true},
	{label: "update-2", op: lifecycle.OpDeploy, config: configV(3), deployed: true},
	{label: "archive", op: lifecycle.OpArchive},
	{label: "redeploy", op: lifecycle.OpDeploy, deployed: true},
	{label: "destroy", op: lifecycle.OpDestroy},
	{label: "deprovision", op: lifecycle.OpDeprovision},
}

// stepHook runs fn after the lifecycle step labelled label.
type stepHook struct {
	label string
	fn    func()
}

// outcome is what one lifecycle did, as its driver saw it.
type outcome struct {
	ref       contract.Ref
	completed bool
	failed    string
	took      time.Duration
	// secretSets are the Secret's values on the cluster after each deploying step.
	secretSets []map[string]string
	// born is time_static's creation time in the state after each deploying step.
	born []string
}

// run drives ref through lifecycleSteps; afterDeploy reads the Secret on the cluster. Each
// of after, if any, runs once the step of its label succeeded.
func (w *world) run(ctx context.Context, ref contract.Ref, after ...stepHook) (out outcome) {
	out.ref = ref
	begin := time.Now()
	defer func() { out.took = time.Since(begin) }()
	for i, s := range lifecycleSteps {
		req := contract.OperationRequest{ConfigYAML: s.config, Actor: "production-e2e", Confirm: s.op == lifecycle.OpDeprovision}
		res, err := drive.SubmitAndWait(ctx, w.client, ref, s.op, req, fmt.Sprintf("prod-%s-%d", ref, i+1), opTimeout)
		if err != nil {
			out.failed = fmt.Sprintf("%s: %v", s.label, err)
			return out
		}
		if res.Result != contract.ResultSucceeded {
			out.failed = s.label + ": " + res.Result
			if res.Failure != nil {
				out.failed += ": " + res.Failure.Step + ": " + res.Failure.Error
			}
			return out
		}
		if s.deployed {
			vals, err := w.clusterSecret(ctx, ref)
			if err != nil {
				out.failed = fmt.Sprintf("%s: read the Secret: %v", s.label, err)
				return out
			}
			out.secretSets = append(out.secretSets, vals)
			born, err := w.stateBorn(ref)
			if err != nil {
				out.failed = fmt.Sprintf("%s: read time_static from the state: %v", s.label, err)
				return out
			}
			out.born = append(out.born, born)
		}
		for _, h := range after {
			if h.label == s.label {
				h.fn()
			}
		}
	}
	out.completed = true
	return out
}
