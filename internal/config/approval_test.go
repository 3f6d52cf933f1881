package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/approval"
)

func TestInstanceApprovalAndControlPlane(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: web\napproval: {policy: always, approvers: [alice], timeout: 2h}\ncontrolPlane: observability\n"))
	require.NoError(t, err)
	assert.Equal(t, approval.Rule{Policy: approval.Always, Approvers: []string{"alice"}, Timeout: 2 * time.Hour}, inst.Approval)
	assert.Equal(t, "observability", inst.ControlPlane)
	again, err := ParseInstance(inst.Canonical())
	require.NoError(t, err, "the canonical file parses back:\n%s", inst.Canonical())
	assert.Equal(t, inst, again)

	short, err := ParseInstance([]byte("stack: web\napproval: destructive\n"))
	require.NoError(t, err)
	assert.Equal(t, approval.Destructive, short.Approval.Policy)
}

func TestApprovalBadInputNamesTheField(t *testing.T) {
	for _, tc := range []struct{ yaml, field, msg string }{
		{"approval: sometimes", "approval", `"sometimes" is not a policy`},
		{"approval: {policy: maybe}", "approval.policy", "is not a policy"},
		{"approval: {timeout: soon}", "approval.timeout", "is not a positive duration"},
		{"approval: {timeout: 900h}", "approval.timeout", "must be between"},
		{"approval: {approvers: alice}", "approval.approvers", "must be a list"},
		{"approval: {who: alice}", "approval.who", "unknown field"},
		{"approval: [always]", "approval", "must be never, destructive, always"},
		{"controlPlane: Edp_1", "controlPlane", "worker pool's name"},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			_, err := ParseInstance([]byte("stack: web\n" + tc.yaml + "\n"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	_, err := ParseSchema([]byte("approval: {policy: always, approvers: []}\n"))
	require.NoError(t, err)
	_, err = ParseSchema([]byte("approval: often\n"))
	require.ErrorContains(t, err, "schema.approval")
}

// An instance file may tighten the platform's policy in the stack, never loosen it.
func TestValidateRefusesWeakerPolicy(t *testing.T) {
	st := testStack(t, map[string]string{SchemaFile: testSchema +
		"approval: {policy: destructive, approvers: [alice, bob], timeout: 2h}\ncontrolPlanes: [observability]\n"})
	for _, tc := range []struct {
		yaml  string
		field string // "" when accepted
		msg   string
	}{
		{"approval: always", "", ""},
		{"approval: {approvers: [bob], timeout: 10m}", "", ""},
		{"controlPlane: observability", "", ""},
		{"approval: never", "approval.policy", "never is weaker than the stack's destructive"},
		{"approval: {approvers: []}", "approval.approvers", "an empty list would let anyone approve"},
		{"approval: {approvers: [mallory]}", "approval.approvers", "mallory not among the stack's approvers"},
		{"approval: {timeout: 30h}", "approval.timeout", "longer than the stack's 2h0m0s"},
		{"controlPlane: edp", "controlPlane", `"edp" is not a worker pool the stack allows (schema.controlPlanes: observability)`},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			inst, err := ParseInstance([]byte("stack: demo\nparameters: {greeting: hi, size: 1}\n" + tc.yaml + "\n"))
			require.NoError(t, err)
			_, err = Validate(st, inst, nil)
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Len(t, ve.Errors, 1)
			assert.Equal(t, tc.field, ve.Errors[0].Field)
			assert.Contains(t, ve.Errors[0].Message, tc.msg)
		})
	}
	open := testStack(t, nil)
	inst, err := ParseInstance([]byte("stack: demo\nparameters: {greeting: hi, size: 1}\ncontrolPlane: edp\napproval: {approvers: [mallory]}\n"))
	require.NoError(t, err)
	_, err = Validate(open, inst, nil)
	require.ErrorContains(t, err, "schema.controlPlanes: none: its instances run on the default pool")
	require.ErrorContains(t, err, "approval.approvers: the stack names no approvers")
	_, err = ParseSchema([]byte("controlPlanes: [Edp]\n"))
	require.ErrorContains(t, err, "schema.controlPlanes")
}
