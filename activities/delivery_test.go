package activities

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

type submittedReq struct {
	ref            contract.Ref
	op             lifecycle.Operation
	cfg, requestID string
}

// fakeRequests stands in for the instances: it records submissions and answers err.
type fakeRequests struct {
	approvals []submittedApproval
	got       []submittedReq
	actor     identity.Actor // the actor the last submission is signed for
	err       error
}

func (f *fakeRequests) Submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, cfg, _, id string) error {
	f.got = append(f.got, submittedReq{ref, op, cfg, id})
	f.actor, _ = identity.From(ctx)
	return f.err
}

func (f *fakeRequests) Approve(ctx context.Context, cmd contract.ApprovalCommand, source, id string) error {
	actor, _ := identity.From(ctx)
	f.approvals = append(f.approvals, submittedApproval{cmd, source, id, actor})
	return f.err
}

type submittedApproval struct {
	cmd        contract.ApprovalCommand
	source, id string
	actor      identity.Actor // the actor the request is signed for
}

func TestSubmitApprovalKeysTheRequestAndReportsARefusal(t *testing.T) {
	gh := fakegithub.New(t)
	gh.AddRepo("acme", "gitops", "main")
	aliceID := strconv.FormatInt(gh.Grant("acme", "gitops", "alice", "write"), 10)
	fg, err := github.New("acme", "gitops", github.WithBaseURL(gh.URL), github.WithToken(gh.Token))
	require.NoError(t, err)
	reqs := &fakeRequests{}
	a := &Activities{Forge: fg, Requests: reqs}
	cmd := contract.ApprovalCommand{Ref: contract.Ref{Tenant: "acme", Name: "shop"}, Verb: contract.VerbApprove, Plan: "abcdef1",
		Commenter: "alice", CommenterID: aliceID, MR: "7", URL: "https://forge.example/pr/7#c1"}
	out, err := a.SubmitApproval(context.Background(), contract.ApprovalSubmit{Delivery: "github/d-1", Index: 2, Command: cmd, Provider: "github"})
	require.NoError(t, err)
	assert.True(t, out.Started)
	require.Len(t, reqs.approvals, 1)
	assert.Regexp(t, `^github/approval-[0-9a-f]{24}$`, reqs.approvals[0].id, "the comment and the command's place in it key the request")
	first := reqs.approvals[0].id
	_, err = a.SubmitApproval(context.Background(), contract.ApprovalSubmit{Delivery: "github/d-replayed", Index: 2, Command: cmd, Provider: "github"})
	require.NoError(t, err)
	assert.Equal(t, first, reqs.approvals[1].id, "the same comment under a new delivery ID is the same request")
	noURL := cmd
	noURL.URL = ""
	_, err = a.SubmitApproval(context.Background(), contract.ApprovalSubmit{Delivery: "github/d-1", Index: 2, Command: noURL, Provider: "github"})
	require.NoError(t, err)
	assert.Equal(t, "github/d-1/approval-2", reqs.approvals[2].id, "without a comment URL, the delivery and the place")
	assert.Contains(t, reqs.approvals[0].source, "github comment by alice on MR 7")
	assert.Equal(t, identity.Actor{Kind: identity.Forge, Issuer: "github", Subject: aliceID, Name: "alice", Via: "comment"},
		reqs.approvals[0].actor, "the request is signed for the account the forge's API vouched for")

	reqs.err = &RefusedError{Err: errors.New("rejected: alice may not approve")}
	out, err = a.SubmitApproval(context.Background(), contract.ApprovalSubmit{Delivery: "github/d-2", Command: cmd, Provider: "github"})
	require.NoError(t, err, "a refusal is the outcome, not a retried error")
	assert.False(t, out.Started)
	assert.Contains(t, out.Error, "may not approve")
}

// A commenter the forge's API does not vouch for as a writer of the repository is refused
// before anything is submitted: read permission, an unknown account, an account renamed since
// the comment (the payload's ID is not the login's), and a GitOps forge that is not the
// comment's. The refusal names the account, never the plan.
func TestSubmitApprovalChecksTheCommenterThroughTheForge(t *testing.T) {
	gh := fakegithub.New(t)
	gh.AddRepo("acme", "gitops", "main")
	aliceID := strconv.FormatInt(gh.Grant("acme", "gitops", "alice", "write"), 10)
	malloryID := strconv.FormatInt(gh.Grant("acme", "gitops", "mallory", "read"), 10)
	fg, err := github.New("acme", "gitops", github.WithBaseURL(gh.URL), github.WithToken(gh.Token))
	require.NoError(t, err)
	reqs := &fakeRequests{}
	a := &Activities{Forge: fg, Requests: reqs}
	cmd := func(login, id string) contract.ApprovalCommand {
		return contract.ApprovalCommand{Ref: contract.Ref{Tenant: "acme", Name: "shop"}, Verb: contract.VerbApprove, Plan: "abcdef1234",
			Commenter: login, CommenterID: id, MR: "7", URL: "https://forge.example/pr/7#" + login}
	}
	lg, err := localgit.Init(filepath.Join(t.TempDir(), "repo"), map[string][]byte{"README": []byte("x")})
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		a    *Activities
		cmd  contract.ApprovalCommand
		want string
	}{
		"read only":       {a, cmd("mallory", malloryID), "@mallory has read permission on the repository: approving needs write"},
		"unknown account": {a, cmd("ghost", "77"), "@ghost is not an account github knows"},
		"renamed":         {a, cmd("alice", malloryID), "@alice is account " + aliceID + " on github, not " + malloryID},
		"another forge":   {&Activities{Forge: lg, Requests: reqs}, cmd("alice", aliceID), "the GitOps forge is localgit, which cannot vouch for github accounts"},
	} {
		out, err := tc.a.SubmitApproval(context.Background(), contract.ApprovalSubmit{Delivery: "github/" + name, Command: tc.cmd, Provider: "github"})
		require.NoError(t, err, name)
		assert.False(t, out.Started, name)
		assert.Contains(t, out.Error, tc.want, name)
		assert.NotContains(t, out.Error, "abcdef1234", name)
	}
	assert.Empty(t, reqs.approvals, "nothing was submitted")
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
	submit := func(op, name, rev string) contract.DeliveryOutcome {
		v, err := env.ExecuteActivity(a.SubmitCommand, contract.SubmitInput{Delivery: "github/d", Index: 3,
			Command:  contract.DeliveryCommand{Operation: op, Ref: contract.Ref{Tenant: "acme", Name: name}, Rev: rev},
			Provider: "github", User: "octocat", UserID: "583231"})
		require.NoError(t, err)
		var out contract.DeliveryOutcome
		require.NoError(t, v.Get(&out))
		return out
	}
	out := submit("provision", "shop", head)
	require.True(t, out.Started)
	require.Equal(t, "github/d/3", out.Request)
	require.Equal(t, []submittedReq{{contract.Ref{Tenant: "acme", Name: "shop"}, lifecycle.OpProvision, "stack: example\n", "github/d/3"}}, reqs.got)
	require.Equal(t, identity.Actor{Kind: identity.Forge, Issuer: "github", Subject: "583231", Name: "octocat", Via: "webhook"}, reqs.actor,
		"the request is signed for the account the signed payload says pushed")

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
	_, err = env.ExecuteActivity(a.SubmitCommand, contract.SubmitInput{Command: contract.DeliveryCommand{Operation: "archive", Ref: contract.Ref{Tenant: "acme", Name: "shop"}}})
	require.ErrorContains(t, err, "connection refused", "a transient failure is retried, not recorded as refused")
}

func TestChangedInstancesComparesTheTwoCommits(t *testing.T) {
	before := map[string][]byte{"acme/web/instance.yaml": []byte("replicas: 1\n"), "acme/old/instance.yaml": []byte("x\n"), "acme/same/instance.yaml": []byte("s\n")}
	after := map[string][]byte{"acme/web/instance.yaml": []byte("replicas: 2\n"), "acme/new/instance.yaml": []byte("n\n"), "acme/same/instance.yaml": []byte("s\n"), "acme/new/terraform/main.tf": []byte("")}
	require.Equal(t, []contract.DeliveryCommand{
		{Operation: "provision", Ref: contract.Ref{Tenant: "acme", Name: "new"}, Rev: "m"},
		{Operation: "deprovision", Ref: contract.Ref{Tenant: "acme", Name: "old"}, Rev: "m"},
		{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "web"}, Rev: "m"},
	}, changedInstances(before, after, "m"))
}

// pushFile commits one file onto main of the bare repository at repo, as a tenant's push does.
func pushFile(t *testing.T, repo, path, content string) string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.test"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git(filepath.Dir(clone), "clone", "-q", "--branch", "main", repo, clone)
	require.NoError(t, os.MkdirAll(filepath.Join(clone, filepath.Dir(path)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(clone, path), []byte(content), 0o644))
	git(clone, "add", path)
	git(clone, "commit", "-q", "-m", "change "+path)
	git(clone, "push", "-q", "origin", "main")
	return git(clone, "rev-parse", "HEAD")
}

// Case 7: a command is keyed by its content, so the same commit's command under another delivery
// ID is the same request; and a command from a commit main has since moved past (a replayed old
// push) is refused, naming the changed file, so it never rolls the instance back.
func TestSubmitCommandIsKeyedByContentAndNeverRollsBack(t *testing.T) {
	repo, v1, reqs, submit := submitWorld(t, nil)
	first := submit("github/d-1", 0, v1)
	require.True(t, first.Started, first.Error)
	replay := submit("github/d-replayed", 4, v1)
	require.True(t, replay.Started)
	require.Equal(t, first.Request, replay.Request, "a new delivery ID is the same request")
	require.Regexp(t, `^github/[0-9a-f]{24}$`, first.Request)
	require.Len(t, reqs.got, 2, "both reached the instance, which takes one request ID once")
	require.Equal(t, reqs.got[0].requestID, reqs.got[1].requestID)

	v2 := pushFile(t, repo, "instances/acme/shop/instance.yaml", "stack: example\nparameters: {v: 2}\n")
	old := submit("github/d-2", 0, v1)
	require.False(t, old.Started)
	require.Contains(t, old.Error, "commit "+v1[:12]+" is older than what main holds for acme/shop: instances/acme/shop/ changed since (instance.yaml by "+v2[:12]+` "change instances/acme/shop/instance.yaml")`)
	require.Len(t, reqs.got, 2, "the replayed old commit reached no instance")
}

// A signed command acts once, whatever the instance's runs: the first delivery to submit a request
// claims it in the store (here the embedded default's claim dir), a retry of that delivery still
// submits, and the same command under another delivery ID is refused naming the first, where
// before it reached the instance, whose run (after a continue-as-new) had forgotten its update ID.
func TestSubmitCommandClaimsItsRequestOnce(t *testing.T) {
	_, v1, reqs, submit := submitWorld(t, store.ClaimDir(filepath.Join(t.TempDir(), store.ClaimsDirName)))
	require.True(t, submit("github/d-1", 0, v1).Started)
	require.True(t, submit("github/d-1", 0, v1).Started, "a retry of the delivery that claimed it")
	replay := submit("github/d-replayed", 0, v1)
	require.False(t, replay.Started)
	require.Contains(t, replay.Error, "was submitted already, by delivery github/d-1#0")
	require.Len(t, reqs.got, 2, "the replay reached no instance")
}

// submitWorld is a local GitOps repository holding acme/shop at v1, and submit, which sends its
// deploy command at rev as one delivery's index-th command to the instances reqs records.
func submitWorld(t *testing.T, claims RequestClaims) (repo, v1 string, reqs *fakeRequests,
	submit func(delivery string, index int, rev string) contract.DeliveryOutcome) {
	t.Helper()
	repo = filepath.Join(t.TempDir(), "repo")
	fg, err := localgit.Init(repo, map[string][]byte{"instances/acme/shop/instance.yaml": []byte("stack: example\nparameters: {v: 1}\n")})
	require.NoError(t, err)
	v1, err = fg.Head(context.Background())
	require.NoError(t, err)
	reqs = &fakeRequests{}
	a := &Activities{Forge: fg, Requests: reqs, Claims: claims}
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return repo, v1, reqs, func(delivery string, index int, rev string) contract.DeliveryOutcome {
		v, err := env.ExecuteActivity(a.SubmitCommand, contract.SubmitInput{Delivery: delivery, Index: index, Actor: "mallory via github push (webhook delivery x)",
			Command: contract.DeliveryCommand{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "shop"}, Rev: rev, Repo: "acme/gitops", Author: "Bob <bob@example.test>"}})
		require.NoError(t, err)
		var out contract.DeliveryOutcome
		require.NoError(t, v.Get(&out))
		return out
	}
}
