package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// A preview's groups, largest first, with their counts and samples, the stateful one flagged, then the instances not planned.
func TestGoldenStackPreview(t *testing.T) {
	upd := contract.PlanFingerprint{Hash: "3f2a9c0b1d4e", Summary: "update aws_db_parameter_group.main (2 attributes)"}
	rep := contract.PlanFingerprint{Hash: "9b8e7d6c5a41", Summary: "replace aws_db_instance.main (stateful!)", Stateful: []string{"aws_db_instance.main"}}
	res := contract.PreviewResult{Spec: contract.PreviewSpec{ID: "p-1", Stack: "web", To: "1.5.0"}, Done: true, Planned: 43, Total: 45,
		Groups: []contract.PreviewGroup{
			{PlanFingerprint: upd, Count: 42, Instances: []contract.Ref{ref("acme", "web"), ref("beta", "web")}},
			{PlanFingerprint: rep, Count: 1, Instances: []contract.Ref{ref("gamma", "web")}},
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

// A fleet's running preview: Total is what is listed so far, and the instances not planned beyond
// the ones its record names are counted.
func TestGoldenStackPreviewOfAFleet(t *testing.T) {
	upd := contract.PlanFingerprint{Hash: "3f2a9c0b1d4e", Summary: "update aws_db_parameter_group.main (2 attributes)"}
	res := contract.PreviewResult{Spec: contract.PreviewSpec{ID: "p-2", Stack: "web", To: "1.5.0"}, Listing: true, Planned: 1800, Total: 2000,
		Groups:     []contract.PreviewGroup{{PlanFingerprint: upd, Count: 1800, Instances: []contract.Ref{ref("acme", "web-0001")}}},
		NotPlanned: map[string]int{contract.PreviewBusy: 3, contract.PreviewSkipped: 900},
		Instances: []contract.PreviewInstance{
			{Ref: ref("acme", "web-0001"), Outcome: contract.PreviewPlanned, Fingerprint: &upd},
			{Ref: ref("acme", "busy"), Outcome: contract.PreviewBusy, Message: "acme/busy is busy: deploy op-3 (plan)"},
			{Ref: ref("gamma", "old"), Outcome: contract.PreviewSkipped, Message: "not deployed (Archived)"},
		}}
	var out bytes.Buffer
	writePreview(&out, res)
	golden(t, "stack-preview-fleet.txt", out.Bytes())
}

// An undo re-pins the instances the rollout changed to the release each ran before, with the
// rollout's waves; a rollout still running, one of parameters, or one that changed nothing is refused.
func TestUndoSpec(t *testing.T) {
	inst := func(name, status, cur, des string) contract.RolloutInstance {
		return contract.RolloutInstance{RolloutAction: contract.RolloutAction{Ref: ref("acme", name), Current: cur, Desired: des}, Status: status}
	}
	st := &contract.RolloutStatus{RolloutState: contract.RolloutState{Phase: contract.PhaseCompleted,
		Spec: contract.RolloutSpec{ID: "r-1", Stack: "web", To: "1.5.0", Canary: 1, BatchSize: 2, MaxFailures: 1},
		Instances: []contract.RolloutInstance{
			inst("a", contract.RolloutUpdated, "stack=web@1.4.0", "stack=web@1.5.0"),
			inst("b", contract.RolloutFailed, "stack=web@1.3.0", "stack=web@1.5.0"),
			inst("c", contract.RolloutAtTarget, "stack=web@1.5.0", "stack=web@1.5.0"),
			inst("d", contract.RolloutPending, "stack=web@1.4.0", "stack=web@1.5.0"),
			inst("e", contract.RolloutUpdated, "stack=web", "stack=web@1.5.0"),
		}}}
	spec, err := client.UndoSpec(st, "r-2", "ann")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"acme/a": "1.4.0", "acme/b": "1.3.0"}
	if fmt.Sprint(spec.Pins) != fmt.Sprint(want) || spec.To != "" || !spec.AllowDowngrade || spec.Undoes != "r-1" || spec.Canary != 1 || spec.ID != "r-2" {
		t.Fatalf("undo spec: %+v", spec)
	}
	st.Phase = contract.PhaseRunning
	if _, err := client.UndoSpec(st, "r-2", "ann"); err == nil || !strings.Contains(err.Error(), "abort it first") {
		t.Fatalf("a running rollout: %v", err)
	}
	st.Phase, st.Spec.To = contract.PhaseCompleted, ""
	if _, err := client.UndoSpec(st, "r-2", "ann"); err == nil || !strings.Contains(err.Error(), "changed parameters") {
		t.Fatalf("a parameter rollout: %v", err)
	}
}
