package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/policy"
)

func authorizeInput(actor identity.Actor, op string) policy.Input {
	return policy.Input{Actor: actor, Operation: op, Tenant: "acme", Name: "web", State: "running", Stack: policy.Stack{Name: "web"}}
}

var (
	acmeAlice = identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "a", Name: "alice", Groups: []string{"tenant:acme"}}
	otherBob  = identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "b", Name: "bob", Groups: []string{"tenant:other"}}
)

func TestAuthorizeDecides(t *testing.T) {
	a := &Activities{Policy: policy.Default()}
	d, err := a.Authorize(context.Background(), authorizeInput(acmeAlice, "deploy"))
	require.NoError(t, err)
	require.True(t, d.Allow)
	require.Equal(t, policy.Default().Hash(), d.PolicyHash)

	d, err = a.Authorize(context.Background(), authorizeInput(otherBob, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
	require.Contains(t, d.Reason, "tenant acme")

	// The decision crosses Temporal as JSON (a local activity's marker) and comes back the same.
	d, err = a.Authorize(context.Background(), authorizeInput(acmeAlice, "destroy"))
	require.NoError(t, err)
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	var back policy.Decision
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, d, back)
	require.Equal(t, []string{"platform-admins"}, back.Approval.Groups)
}

// Without an injected engine the platform's default decides: never no policy at all.
func TestAuthorizeWithoutEngineUsesDefault(t *testing.T) {
	d, err := (&Activities{}).Authorize(context.Background(), authorizeInput(otherBob, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
}

func TestAuthorizeBadInputIsNonRetryable(t *testing.T) {
	in := authorizeInput(acmeAlice, "deploy")
	in.Tenant = ""
	_, err := (&Activities{Policy: policy.Default()}).Authorize(context.Background(), in)
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, contract.ErrPolicyInput, ae.Type())
	require.True(t, ae.NonRetryable())
	var fields []contract.FieldError
	require.NoError(t, ae.Details(&fields))
	require.Equal(t, "tenant", fields[0].Field)
}

// A stack naming an approver group the platform never declared fails the step, naming it.
func TestAuthorizeUndeclaredGroupIsNonRetryable(t *testing.T) {
	in := authorizeInput(acmeAlice, "deploy")
	in.Stack.Approval = approval.Rule{Policy: approval.Always, Approvers: []string{"group:dba"}}
	_, err := (&Activities{Policy: policy.Default()}).Authorize(context.Background(), in)
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, contract.ErrPolicy, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, ae.Error(), `"dba"`)
}

// An operator's bundle decides instead of the default.
func TestAuthorizeWithOperatorPolicy(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"),
		[]byte("package slipway\n\ndecision := {\"allow\": false, \"reason\": \"change freeze\"}\n"), 0o644))
	e, err := policy.Load(dir)
	require.NoError(t, err)
	d, err := (&Activities{Policy: e}).Authorize(context.Background(), authorizeInput(acmeAlice, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
	require.Equal(t, "change freeze", d.Reason)
	require.Equal(t, e.Hash(), d.PolicyHash)
	require.NotEqual(t, policy.Default().Hash(), d.PolicyHash)
}

// The stack's stateful: reaches the pipeline's controls beside its approval rule.
func TestControlsCarryStateful(t *testing.T) {
	stack, err := config.LoadStack("db", map[string][]byte{config.SchemaFile: []byte("approval: never\nstateful: [aws_db_instance]\n")})
	require.NoError(t, err)
	c := controls(stack, &config.Instance{Stack: "db"})
	require.Equal(t, []string{"aws_db_instance"}, c.Stateful)
	require.Equal(t, approval.Never, c.Approval.Policy)
}
