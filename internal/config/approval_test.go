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
