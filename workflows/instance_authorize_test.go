package workflows

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
)

// The policy sees the whole request: a resolve's arguments, the instance it touches and the
// failed operation with who asked for it. With them the default policy refuses alice's
// --accept-render of her own destroy, naming the flag; carol (platform-admins) may accept it.
func TestAuthorizeGivesThePolicyTheWholeRequest(t *testing.T) {
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-alice", Name: "alice", Groups: []string{"tenant:acme"}}
	carol := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-carol", Name: "carol", Groups: []string{"platform-admins"}}
	req := contract.DecisionRequest{Reason: "x", AcceptRender: true}
	for _, tc := range []struct {
		actor identity.Actor
		deny  string
	}{{alice, "--accept-render needs platform-admins"}, {carol, ""}} {
		var seen policy.Input
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		env.RegisterActivityWithOptions(func(ctx context.Context, in policy.Input) (policy.Decision, error) {
			seen = in
			return policy.Default().Decide(ctx, in)
		}, activity.RegisterOptions{Name: contract.ActAuthorize})
		env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (string, error) {
			e := &entity{s: &contract.InstanceState{Ref: contract.Ref{Tenant: "acme", Name: "web"}, Stack: "example",
				State: lifecycle.DestroyFailed,
				Current: &contract.Operation{ID: "3-e1", Kind: lifecycle.OpDestroy, From: lifecycle.Deployed, Result: contract.ResultFailed,
					Requester: &alice, Failure: &contract.Failure{Step: contract.VerifyRender}}}}
			err := e.authorize(ctx, tc.actor, contract.UpdateResolve, []any{req})
			if err != nil {
				return err.Error(), nil
			}
			return "", nil
		}, workflow.RegisterOptions{Name: "authorize-test"})
		env.ExecuteWorkflow("authorize-test")
		require.NoError(t, env.GetWorkflowError())
		var refusal string
		require.NoError(t, env.GetWorkflowResult(&refusal))

		require.Equal(t, "resolve", seen.Operation)
		raw, err := json.Marshal(seen.Request)
		require.NoError(t, err)
		var args contract.DecisionRequest
		require.NoError(t, json.Unmarshal(raw, &args))
		require.Equal(t, req, args, "the policy sees every argument of the decision")
		require.JSONEq(t, `{"reason":"x","acceptRender":true}`, string(raw))
		require.Equal(t, []string{"acme/web"}, seen.Instances)
		require.NotNil(t, seen.Current)
		require.Equal(t, "destroy", seen.Current.Kind)
		require.Equal(t, contract.VerifyRender, seen.Current.FailedStep)
		require.Equal(t, &alice, seen.Current.Requester, "the policy knows who asked for the failed operation")
		require.Equal(t, string(lifecycle.OpDestroy.Running(lifecycle.Deployed)), seen.NextState, "accepting resumes the destroy")
		if tc.deny == "" {
			require.Empty(t, refusal, "%s may accept", tc.actor.Name)
		} else {
			require.Contains(t, refusal, tc.deny)
		}
	}
}
