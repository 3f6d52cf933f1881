package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// An approver's wrong hash is refused without a digit of the plan awaiting approval, or of a
// voided plan the guess happens to name: a refusal must not hand the real hash to a guesser.
func TestWrongPlanHashIsRefusedWithNothingOfEitherHash(t *testing.T) {
	waiting := strings.Repeat("ab", 32)
	voided := strings.Repeat("cd", 32)
	e := &entity{s: &contract.InstanceState{Ref: contract.Ref{Tenant: "acme", Name: "web"},
		Approval:    &contract.ApprovalWait{Hash: waiting, What: "terraform plan", Approvers: []string{"alice"}},
		ApprovalLog: []contract.ApprovalRecord{{Hash: voided, Event: approvalVoided, At: time.Unix(0, 0)}}}}
	for guess, want := range map[string]string{
		"0000000":   "the plan hash does not match the plan awaiting approval (terraform plan)",
		voided[:10]: "the plan hash names a plan voided at",
	} {
		err := e.admitApproval(contract.VerbApprove, contract.ApprovalRequest{Plan: guess, Actor: "alice"}, "alice")
		require.ErrorContains(t, err, want)
		for _, h := range []string{waiting, voided} {
			require.NotContains(t, strings.ReplaceAll(err.Error(), guess, ""), h[:7], "the refusal of %s echoes a hash", guess)
		}
	}
	require.NoError(t, e.admitApproval(contract.VerbApprove, contract.ApprovalRequest{Plan: waiting[:12], Actor: "alice"}, "alice"))
}
