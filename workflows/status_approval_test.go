package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/policy"
)

func TestMayApprove(t *testing.T) {
	person := func(name string, groups ...string) identity.Actor {
		return identity.Actor{Kind: identity.Person, Issuer: "https://idp", Subject: name, Name: name, Groups: groups}
	}
	platform := &contract.ApprovalWait{Required: &policy.Requirement{Groups: []string{"platform-admins"}, Count: 1}}
	alice := &contract.ApprovalWait{Required: &policy.Requirement{Groups: []string{"user:alice"}, Count: 1}}
	legacy := &contract.ApprovalWait{Approvers: []string{"alice"}}
	for _, tc := range []struct {
		who  identity.Actor
		w    *contract.ApprovalWait
		want bool
	}{
		{person("carol", "platform-admins"), platform, true},
		{person("alice", "tenant:acme"), platform, false},
		{person("alice"), alice, true},
		{person("bob", "platform-admins"), alice, false},
		{identity.Actor{Kind: identity.Forge, Issuer: "github", Subject: "7", Name: "alice"}, alice, false}, // a forge login is not the person
		{identity.Actor{}, platform, false},
		{person("alice"), legacy, true},
		{person("mallory"), legacy, false},
		{person("anyone"), &contract.ApprovalWait{}, false}, // a wait from before that names no approvers shows its plan to no one here
	} {
		assert.Equal(t, tc.want, mayApprove(tc.who, tc.w), "%s on %+v", tc.who, tc.w.Required)
	}
}

func TestRedactApprovalsKeepsWhoMustApproveNotThePlan(t *testing.T) {
	hash := "3f9c2a1b7d0e5f4a3f9c2a1b7d0e5f4a3f9c2a1b7d0e5f4a3f9c2a1b7d0e5f4a"
	st := contract.Status{
		Approval: &contract.ApprovalWait{OpID: "3-e", Hash: hash, What: "terraform plan: 1 to destroy", Why: "replaces aws_db_instance.main",
			Plan:     &contract.PlanSummary{Destroy: 1, Resources: []contract.ResourceChange{{Address: "aws_db_instance.main", Actions: []string{"delete"}}}},
			Required: &policy.Requirement{Groups: []string{"platform-admins"}, Count: 1}, Deadline: time.Unix(100, 0)},
		ApprovalLog: []contract.ApprovalRecord{{Hash: hash, Event: approvalAwaiting, Reason: "replaces aws_db_instance.main"}, {Hash: hash, Event: "approved", Actor: "carol", Reason: "fine"}},
		Operation: &contract.OperationStatus{Plan: &contract.PlanSummary{Destroy: 1}, Steps: []contract.StepRecord{{Name: contract.TFPlan, Detail: "0 to add, 0 to change, 1 to destroy"},
			{Name: contract.Validate, Detail: "stack db"}}},
	}
	redactApprovals(&st)
	w := st.Approval
	assert.True(t, w.Redacted)
	assert.Empty(t, w.Hash)
	assert.Empty(t, w.What)
	assert.Empty(t, w.Why)
	assert.Nil(t, w.Plan)
	assert.Equal(t, "platform-admins", w.Awaited())
	assert.Equal(t, time.Unix(100, 0), w.Deadline)
	for _, r := range st.ApprovalLog {
		assert.Empty(t, r.Hash)
		assert.NotContains(t, r.Reason, "aws_db_instance")
	}
	assert.Equal(t, "carol", st.ApprovalLog[1].Actor, "who decided stays")
	assert.Nil(t, st.Operation.Plan)
	assert.Empty(t, st.Operation.Steps[0].Detail)
	assert.Equal(t, "stack db", st.Operation.Steps[1].Detail)
}
