package activities

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
)

type submittedReq struct {
	ref            steps.Ref
	op             lifecycle.Operation
	cfg, requestID string
}

// fakeRequests stands in for the instances: it records submissions and answers err.
type fakeRequests struct {
	approvals []submittedApproval
	got       []submittedReq
	err       error
}

func (f *fakeRequests) Submit(_ context.Context, ref steps.Ref, op lifecycle.Operation, cfg, _, id string) error {
	f.got = append(f.got, submittedReq{ref, op, cfg, id})
	return f.err
}

func (f *fakeRequests) Approve(_ context.Context, cmd steps.ApprovalCommand, source, id string) error {
	f.approvals = append(f.approvals, submittedApproval{cmd, source, id})
	return f.err
}

type submittedApproval struct {
	cmd        steps.ApprovalCommand
	source, id string
}

func TestSubmitApprovalKeysTheRequestAndReportsARefusal(t *testing.T) {
	fg, err := localgit.Init(filepath.Join(t.TempDir(), "repo"), map[string][]byte{"README": []byte("x")})
	require.NoError(t, err)
	reqs := &fakeRequests{}
	a := &Activities{Forge: fg, Requests: reqs}
	cmd := steps.ApprovalCommand{Ref: steps.Ref{Tenant: "acme", Name: "shop"}, Verb: steps.VerbApprove, Plan: "abcdef1",
		Commenter: "alice", MR: "7", URL: "https://forge.example/pr/7#c1"}
	out, err := a.SubmitApproval(context.Background(), steps.ApprovalSubmit{Delivery: "github/d-1", Index: 2, Command: cmd, Provider: "github"})
	require.NoError(t, err)
	assert.True(t, out.Started)
	require.Len(t, reqs.approvals, 1)
	assert.Equal(t, "github/d-1/approval-2", reqs.approvals[0].id, "the delivery and the comment's place key the request")
	assert.Contains(t, reqs.approvals[0].source, "github comment by alice on MR 7")

	reqs.err = &RefusedError{Err: errors.New("rejected: alice may not approve")}
	out, err = a.SubmitApproval(context.Background(), steps.ApprovalSubmit{Delivery: "github/d-2", Command: cmd, Provider: "github"})
	require.NoError(t, err, "a refusal is the outcome, not a retried error")
	assert.False(t, out.Started)
	assert.Contains(t, out.Error, "may not approve")
}

func TestSubmitCommandReadsTheInstanceFileAtItsCommit(t *testing.T) {
	fg, err := localgit.Init(filepath.Join(t.TempDir(), "repo"), map[string][]byte{
		"instances/acme/shop/instance.yaml": []byte("stack: example\n"),
	})
	require.NoError(t, err)
	head, err := fg.Head(context.Background())
	require.NoError(t, err)
	reqs := &fakeRequests{}
	a := &Activities{Forge: fg, Requests: reqs}
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	submit := func(op, name, rev string) steps.DeliveryOutcome {
		v, err := env.ExecuteActivity(a.SubmitCommand, steps.SubmitInput{Delivery: "github/d", Index: 3,
			Command: steps.DeliveryCommand{Operation: op, Ref: steps.Ref{Tenant: "acme", Name: name}, Rev: rev}})
		require.NoError(t, err)
		var out steps.DeliveryOutcome
		require.NoError(t, v.Get(&out))
		return out
	}
	out := submit("provision", "shop", head)
	require.True(t, out.Started)
	require.Equal(t, "github/d/3", out.Request)
	require.Equal(t, []submittedReq{{steps.Ref{Tenant: "acme", Name: "shop"}, lifecycle.OpProvision, "stack: example\n", "github/d/3"}}, reqs.got)

	out = submit("provision", "none", head)
	require.False(t, out.Started)
	require.Contains(t, out.Error, "no instances/acme/none/instance.yaml")
	out = submit("deploy", "shop", "0123456789abcdef0123456789abcdef01234567")
	require.Contains(t, out.Error, "read instance file at 0123456789ab", "a commit the repo does not have is refused")

	reqs.err = &RefusedError{Err: errors.New("rejected: acme/shop is busy")}
	out = submit("archive", "shop", head)
	require.False(t, out.Started)
	require.Contains(t, out.Error, "busy")
	reqs.err = errors.New("connection refused")
	_, err = env.ExecuteActivity(a.SubmitCommand, steps.SubmitInput{Command: steps.DeliveryCommand{Operation: "archive", Ref: steps.Ref{Tenant: "acme", Name: "shop"}}})
	require.ErrorContains(t, err, "connection refused", "a transient failure is retried, not recorded as refused")
}

func TestChangedInstancesComparesTheTwoCommits(t *testing.T) {
	before := map[string][]byte{"acme/web/instance.yaml": []byte("replicas: 1\n"), "acme/old/instance.yaml": []byte("x\n"), "acme/same/instance.yaml": []byte("s\n")}
	after := map[string][]byte{"acme/web/instance.yaml": []byte("replicas: 2\n"), "acme/new/instance.yaml": []byte("n\n"), "acme/same/instance.yaml": []byte("s\n"), "acme/new/terraform/main.tf": []byte("")}
	require.Equal(t, []steps.DeliveryCommand{
		{Operation: "provision", Ref: steps.Ref{Tenant: "acme", Name: "new"}, Rev: "m"},
		{Operation: "deprovision", Ref: steps.Ref{Tenant: "acme", Name: "old"}, Rev: "m"},
		{Operation: "deploy", Ref: steps.Ref{Tenant: "acme", Name: "web"}, Rev: "m"},
	}, changedInstances(before, after, "m"))
}
