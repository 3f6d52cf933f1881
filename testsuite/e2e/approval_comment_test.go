package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
)

// An approval by comment on a real Gitea: the deploy's PR says who must approve and how, never
// the plan or its hash; a comment from an account without write permission on the repository
// (checked through Gitea's API) is refused before anything is submitted; a comment from a writer
// the policy does not name as an approver is refused before its plan hash is even compared; both
// replies name no hash; an approver's `/slipway approve HASH` comment, delivered by Gitea's own
// webhook and signed for the forge account, lets the deploy merge and apply; a redelivery of that
// comment changes nothing.
func TestApprovalByCommentOnAGiteaPR(t *testing.T) {
	ctx := context.Background()
	gs, _ := giteaGitOps(t, guardedStack("guarded", "approval: {policy: always, approvers: [alice]}\n", nil))
	// The platform's policy maps this Gitea's accounts to people (data.slipway.forge_users).
	t.Setenv(policy.EnvDir, forgeUsersPolicy(t, "gitea:"+gs.URL, map[string]string{"alice": "alice", "dave": "dave"}))
	last := &lastDelivery{}
	e, hookURL := giteaWebhookEnv(t, gs, "comment-webhook-secret", func(h http.Handler) http.Handler { last.next = h; return last })
	admin, err := gs.Client(ctx)
	require.NoError(t, err)
	commenter := func(name string) *gitea.Client {
		no := false
		_, _, err := admin.AdminCreateUser(gitea.CreateUserOption{Username: name, Email: name + "@example.test",
			Password: "pw-" + name + "-123456", MustChangePassword: &no})
		require.NoError(t, err)
		c, err := gitea.NewClient(gs.URL, gitea.SetBasicAuth(name, "pw-"+name+"-123456"))
		require.NoError(t, err)
		return c
	}
	alice, mallory, dave := commenter("alice"), commenter("mallory"), commenter("dave")
	write := gitea.AccessModeWrite
	for _, writer := range []string{"alice", "dave"} {
		_, err := admin.AddCollaborator(gs.AdminUser, "gitops", writer, gitea.AddCollaboratorOption{Permission: &write})
		require.NoError(t, err)
	}

	const ref = "acme/shop"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hi\n"))
	var w *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "alice", func() { w = e.Status(ref).Approval })
		return w != nil && w.Hash != ""
	}, time.Minute, 100*time.Millisecond)
	require.NotNil(t, w.MR)
	pr, err := strconv.ParseInt(w.MR.ID, 10, 64)
	require.NoError(t, err)
	comments := func() string {
		cs, _, err := admin.ListIssueComments(gs.AdminUser, "gitops", pr, gitea.ListIssueCommentOptions{})
		require.NoError(t, err)
		var b strings.Builder
		for _, c := range cs {
			b.WriteString(c.Poster.UserName + ": " + c.Body + "\n")
		}
		return b.String()
	}
	require.Eventually(t, func() bool { return strings.Contains(comments(), "awaits approval** by user:alice") },
		30*time.Second, 200*time.Millisecond, "the PR says who must approve and how")
	require.NotContains(t, comments(), w.Hash[:7], "the PR never shows the plan's hash")

	// mallory may read the repository but not write it: Gitea's API says so, nothing is submitted.
	_, _, err = mallory.CreateIssueComment(gs.AdminUser, "gitops", pr, gitea.CreateIssueCommentOption{Body: "/slipway approve " + w.Hash[:12]})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(comments(), "slipway did not take `/slipway approve` from @mallory")
	},
		time.Minute, 200*time.Millisecond, "comments:\n%s\ndeliveries:\n%s", comments(), last.log())
	require.Contains(t, comments(), "@mallory has read permission on the repository: approving needs write")
	// dave writes to the repository but is not an approver: the policy refuses him before his
	// (wrong) hash is compared, so the reply cannot tell him the plan either.
	_, _, err = dave.CreateIssueComment(gs.AdminUser, "gitops", pr, gitea.CreateIssueCommentOption{Body: "/slipway approve 0000000"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(comments(), "slipway did not take `/slipway approve` from @dave")
	},
		time.Minute, 200*time.Millisecond, "comments:\n%s\ndeliveries:\n%s", comments(), last.log())
	require.Contains(t, comments(), "dave may not approve: not one of the approvers (user:alice)")
	// What slipway wrote on the PR (mallory quoted the hash herself: she read it somewhere else).
	var replies strings.Builder
	for _, line := range strings.Split(comments(), "\n") {
		if !strings.HasPrefix(line, "mallory:") {
			replies.WriteString(line + "\n")
		}
	}
	for _, leak := range []string{w.Hash[:7], "does not match the plan awaiting approval", "terraform_data", "to destroy"} {
		require.NotContains(t, replies.String(), leak, "a reply tells a non-approver about the plan")
	}
	as(t, "alice", func() { require.Equal(t, w.Hash, e.Status(ref).Approval.Hash, "still waiting") })
	require.Contains(t, e.MustCLI(0, "events", "--json").Stdout, "@mallory has read permission on the repository", "the refusal is recorded with the delivery")

	_, _, err = alice.CreateIssueComment(gs.AdminUser, "gitops", pr, gitea.CreateIssueCommentOption{Body: "LGTM\n/slipway approve " + w.Hash[:12]})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Deployed }, 2*time.Minute, 200*time.Millisecond,
		"deliveries:\n%s", last.log())
	st := e.Status(ref)
	var approved *contract.ApprovalRecord
	for i := range st.ApprovalLog {
		if st.ApprovalLog[i].Event == "approved" {
			approved = &st.ApprovalLog[i]
		}
	}
	require.NotNil(t, approved)
	require.Equal(t, "alice", approved.Actor)
	require.NotNil(t, approved.By, "the approval carries the verified approver")
	require.Equal(t, identity.Forge, approved.By.Kind)
	require.Equal(t, "gitea:"+gs.URL, approved.By.Issuer)
	require.NotEmpty(t, approved.By.Subject, "Gitea's user ID")
	var refused []string
	for _, r := range st.ApprovalLog {
		if r.Event == "refused" {
			refused = append(refused, r.Actor)
		}
	}
	require.Equal(t, []string{"dave"}, refused, "the policy's refusal is in the approval log")
	require.Contains(t, approved.Source, "gitea comment by alice on MR "+w.MR.ID)
	require.Contains(t, comments(), "slipway: acme/shop approved by @alice.")

	// Gitea's redelivery of alice's comment is answered, and taken no second time.
	last.mu.Lock()
	header, body := last.header.Clone(), append([]byte(nil), last.body...)
	last.mu.Unlock()
	require.Contains(t, string(body), "LGTM", "the last accepted delivery is alice's comment")
	require.Equal(t, http.StatusOK, post(t, hookURL+"/gitea", header, body))
	time.Sleep(time.Second)
	n := 0
	for _, r := range e.Status(ref).ApprovalLog {
		if r.Event == "approved" {
			n++
		}
	}
	require.Equal(t, 1, n)
}
