package cli

import (
	"bytes"
	"testing"

	"github.com/slipway-dev/slipway/internal/contract"
)

// A preview's groups, largest first, the stateful one flagged, then the instances not planned.
func TestGoldenStackPreview(t *testing.T) {
	upd := contract.PlanFingerprint{Hash: "3f2a9c0b1d4e", Summary: "update aws_db_parameter_group.main (2 attributes)"}
	rep := contract.PlanFingerprint{Hash: "9b8e7d6c5a41", Summary: "replace aws_db_instance.main (stateful!)", Stateful: []string{"aws_db_instance.main"}}
	res := contract.PreviewResult{Spec: contract.PreviewSpec{ID: "p-1", Stack: "web", To: "1.5.0"}, Done: true, Planned: 3, Total: 5,
		Groups: []contract.PreviewGroup{
			{PlanFingerprint: upd, Instances: []contract.Ref{ref("acme", "web"), ref("beta", "web")}},
			{PlanFingerprint: rep, Instances: []contract.Ref{ref("gamma", "web")}},
		},
		Instances: []contract.PreviewInstance{
			{Ref: ref("acme", "web"), Outcome: contract.PreviewPlanned, Fingerprint: &upd},
			{Ref: ref("acme", "busy"), Outcome: contract.PreviewBusy, Message: "acme/busy is busy: deploy op-3 (plan)"},
			{Ref: ref("beta", "web"), Outcome: contract.PreviewPlanned, Fingerprint: &upd},
			{Ref: ref("beta", "bad"), Outcome: contract.PreviewFailed, Message: "the plan failed at terraform-plan: Error: Unsupported argument"},
			{Ref: ref("gamma", "web"), Outcome: contract.PreviewPlanned, Fingerprint: &rep},
			{Ref: ref("gamma", "old"), Outcome: contract.PreviewSkipped, Message: "not deployed (Archived)"},
		}}
	var out bytes.Buffer
	writePreview(&out, res)
	golden(t, "stack-preview.txt", out.Bytes())
}
