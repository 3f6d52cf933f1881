package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// The e2e, on the real stack with the real identity provider: alice (tenant acme), bob
// (tenant other) and carol (platform-admins) sign in through the provider's pages and run the
// real CLI through a `slipway server` the test started. bob cannot deploy, approve, read the
// secrets of or read the plan hash of acme's instance (exit 3, nothing changes); alice deploys it
// but cannot approve her own destroy; carol can. Every decision is in `slipway audit`.
func TestIdentityPolicyForPeopleThroughTheServer(t *testing.T) {
	w := newPeople(t)
	e := w.e
	const ref = acmeWeb

	// bob is in no group of acme's: every change is refused with exit 3, and nothing changes.
	before := e.Status(ref)
	for _, args := range [][]string{
		{"deploy", ref},
		{"destroy", ref},
		{"plan", ref},
		{"gate", "add", ref, "freeze"},
		{"secrets", ref},
	} {
		r := w.as(w.bob, 3, args...)
		require.Contains(t, r.Stderr, "denied by policy", "%v", args)
		require.Contains(t, r.Stderr, "tenant acme", "the refusal names the tenant: %v", args)
	}
	after := e.Status(ref)
	require.Equal(t, before.State, after.State)
	require.Equal(t, before.Operation.ID, after.Operation.ID, "no operation ran")
	require.Empty(t, after.Gates)

	// alice asks for a destroy: the default policy wants a platform approval first.
	out := w.as(w.alice, 0, "destroy", ref).Stdout
	_, requestID, ok := strings.Cut(strings.TrimSpace(out), "(request ")
	require.True(t, ok, out)
	requestID = strings.TrimSuffix(requestID, ")")
	var hash string
	require.Eventually(t, func() bool {
		a := e.Status(ref).Approval // the dev key holder (a platform admin) sees the hash
		if a != nil {
			hash = a.Hash
		}
		return hash != ""
	}, time.Minute, 50*time.Millisecond)

	// Neither bob (who may not read acme's status at all) nor alice (who asked) learns the hash;
	// neither may approve.
	mine := w.as(w.alice, 0, "status", ref, "--json", "-o", "all")
	require.NotContains(t, mine.Stdout, hash[:12], "the plan hash goes only to people who may approve")
	bobs := w.as(w.bob, 3, "status", ref, "--json", "-o", "all")
	require.NotContains(t, bobs.Stdout+bobs.Stderr, hash[:12])
	r := w.as(w.bob, 3, "approve", ref, "--plan", hash)
	require.Contains(t, r.Stderr, "denied by policy")
	require.NotContains(t, r.Stderr, hash[:7])
	r = w.as(w.alice, 3, "approve", ref, "--plan", hash)
	require.Contains(t, r.Stderr, "self-approval")
	st := e.Status(ref)
	require.Equal(t, lifecycle.Destroying, st.State, "still waiting")
	require.Equal(t, hash, st.Approval.Hash)

	// carol, a platform admin, sees the hash and approves; the destroy applies.
	require.Contains(t, w.as(w.carol, 0, "status", ref).Stdout, hash)
	w.as(w.carol, 0, "approve", ref, "--plan", hash)
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
	require.Empty(t, e.Resources(web))

	// Every decision is in the audit, with the verified actors: the workers' and the server's
	// (bob's tries are refused by the server before they reach the instance).
	audit := e.MustCLI(0, "audit", "--tenant", "acme", "--state-dir", e.StateDir).Stdout
	t.Logf("slipway audit --tenant acme:\n%s", audit)
	// Other tests share tenant acme on this server: the filter keeps only acme's lines, and this
	// instance's lines must hold every decision made above.
	seen := map[string]bool{}
	destroyAllowed := false
	for _, line := range strings.Split(strings.TrimSpace(audit), "\n") {
		var entry client.AuditEntry
		require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
		require.Equal(t, "acme", entry.Tenant, line)
		require.NotEmpty(t, entry.PolicyHash, "every decision names the policy's version: %s", line)
		require.NotEmpty(t, entry.Reason, line)
		if entry.Instance != "acme/web" {
			continue
		}
		seen["actor "+entry.Actor], seen["decision "+entry.Decision], seen["operation "+entry.Operation] = true, true, true
		if entry.Operation == "destroy" && entry.Actor == "alice" && entry.Decision == "allowed" {
			destroyAllowed = true
			require.Equal(t, requestID, entry.RequestID, "the decision names the request it decided")
		}
	}
	for _, want := range []string{"actor bob", "actor alice", "actor carol", "decision denied", "decision approved", "operation approve"} {
		require.True(t, seen[want], "acme/web's audit lacks %s", want)
	}
	require.True(t, destroyAllowed, "alice's destroy was allowed (pending a platform approval)")
}
