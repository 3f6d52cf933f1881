package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"

	"github.com/slipway-dev/slipway/internal/attest"
	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// A plan that replaces a resource the stack marks stateful waits for a platform approval even
// though the stack's own approval: says never: the policy reads the real terraform plan at the
// pipeline's approval step. A change that only adds does not wait; the tenant member who asked
// may not approve; a platform admin does, and the plan made on the MR is what is applied.
func TestAStatefulReplaceWaitsForAPlatformApprovalWhateverTheStackSays(t *testing.T) {
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "a stateful stack that never asks for approval",
		guardedStack("keeper", "approval: never\nstateful: [terraform_data]\n", nil))
	const ref = "acme/db"
	file := func(generation string) string {
		return writeFile(t, "stack: keeper\nparameters:\n  greeting: hello\n  generation: "+generation+"\n")
	}
	e.MustCLI(0, "create", ref, "-f", file("1"), "--wait")
	as(t, "alice:tenant:acme", func() {
		e.MustCLI(0, "deploy", ref, "--wait")                                                                                      // adds only: no approval
		e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: keeper\nparameters:\n  greeting: hi\n  generation: 1\n"), "--wait") // changes in place
	})
	require.Nil(t, e.Status(ref).Approval)
	require.Len(t, e.Resources(contract.Ref{Tenant: "acme", Name: "db"}), 1)

	// Generation 2 replaces terraform_data.app, which the stack marks stateful.
	as(t, "alice:tenant:acme", func() { e.MustCLI(0, "deploy", ref, "-f", file("2")) })
	var w *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "carol:platform-admins", func() { w = e.Status(ref).Approval })
		return w != nil && w.Hash != ""
	}, time.Minute, 100*time.Millisecond)
	require.Equal(t, []string{"platform-admins"}, w.Required.Groups)
	require.False(t, w.Required.AllowSelf)
	require.Contains(t, w.Why, "replaces terraform_data.app, which the stack marks stateful")
	require.Equal(t, "alice", w.Requester.Name)
	require.NotEmpty(t, w.PolicyHash, "the policy that decided is named")
	require.NotNil(t, w.MR, "planned on the MR's head, before anything reached main")

	// A direct Temporal client (as anyone who can read the frontend) asks the status query: with
	// no attestation, or one made with a key that is not slipway's, it is answered as to someone
	// unknown, without the plan. With slipway's key, as carol, the same query shows it.
	carol := identity.Actor{Kind: identity.Person, Issuer: "local", Subject: "carol", Name: "carol", Groups: []string{"platform-admins"}, Via: "dev"}
	foreign, err := attest.Generate()
	require.NoError(t, err)
	foreignKeys, err := attest.Parse("a key that is not slipway's", foreign)
	require.NoError(t, err)
	slipwayKeys, err := attest.Load()
	require.NoError(t, err)
	query := func(sign *attest.Keyring) *contract.ApprovalWait {
		o, err := slipclient.Options(slipclient.WithHostPort(e.Address))
		require.NoError(t, err)
		o.Interceptors = nil
		if sign != nil {
			o.Interceptors = []interceptor.ClientInterceptor{attest.ClientInterceptor(sign, carol, o.DataConverter)}
		}
		c, err := client.Dial(o)
		require.NoError(t, err)
		defer c.Close()
		v, err := c.QueryWorkflow(context.Background(), contract.InstanceWorkflowID(contract.Ref{Tenant: "acme", Name: "db"}), "",
			contract.QueryStatus, contract.StatusRequest{Output: contract.OutputAll})
		require.NoError(t, err)
		var st contract.Status
		require.NoError(t, v.Get(&st))
		require.NotNil(t, st.Approval)
		return st.Approval
	}
	for name, keys := range map[string]*attest.Keyring{"no attestation": nil, "a foreign key": foreignKeys} {
		got := query(keys)
		require.True(t, got.Redacted, name)
		require.Empty(t, got.Hash, name)
		require.Nil(t, got.Plan, name)
		require.Empty(t, got.Why, name)
	}
	require.Equal(t, w.Hash, query(slipwayKeys).Hash, "the same query, attested by slipway's key for carol")

	as(t, "alice:tenant:acme", func() {
		require.True(t, e.Status(ref).Approval.Redacted, "alice may not approve it, so she does not see its plan")
		r := e.CLI("approve", ref, "--plan", w.Hash)
		require.NotEqual(t, 0, r.Code)
		require.Contains(t, r.Stderr, "alice may not approve: not one of the approvers (platform-admins)")
	})
	require.Equal(t, lifecycle.Deploying, e.Status(ref).State, "still waiting")
	as(t, "carol:platform-admins", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash[:12]) })
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 100*time.Millisecond)
	st := e.Status(ref)
	var approved *contract.ApprovalRecord
	for i := range st.ApprovalLog {
		if st.ApprovalLog[i].Event == "approved" {
			approved = &st.ApprovalLog[i]
		}
	}
	require.NotNil(t, approved)
	require.Equal(t, "carol", approved.Actor)
	require.Equal(t, w.Hash, approved.Hash)
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "acme", Name: "db"}), "approvals-stateful-replace")
}
