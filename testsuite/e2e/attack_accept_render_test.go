package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// Issue 36, attack 1, end to end through `slipway server` with people signed in at the real
// provider: alice (tenant acme) edits acme/web's rendered terraform on main and asks for its
// destroy, which fails at verify-render. She may not wave her own change through: her
// `resolve --accept-render` (and `--to Destroyed`) is refused with exit 3 naming the argument,
// and nothing changes: no decision, no new attempt, the state as it was, her HCL never planned.
// carol (platform-admins) reviews and accepts; the destroy goes on.
func TestAttackAcceptRenderOfOwnChange(t *testing.T) {
	w := newPeople(t)
	e := w.e
	const ref = acmeWeb
	const tf = "instances/acme/web/terraform/main.tf"
	rendered := testsuite.Git(t, e.GitOpsRepo, "show", "main:"+tf)
	testsuite.PushFiles(t, e.GitOpsRepo, "alice: a little extra", map[string][]byte{
		tf: []byte(rendered + "\nresource \"terraform_data\" \"alices\" {\n  input = \"run by the worker\"\n}\n"),
	})

	w.as(w.alice, 0, "destroy", ref)
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status(ref)
		return st.State == lifecycle.DestroyFailed
	}, time.Minute, 100*time.Millisecond)
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.VerifyRender, st.Failure.Step)

	for flag, args := range map[string][]string{
		"--accept-render": {"resolve", ref, "--accept-render", "--reason", "x"},
		"--to":            {"resolve", ref, "--to", string(lifecycle.Destroyed), "--reason", "x"},
	} {
		r := w.as(w.alice, 3, args...)
		t.Logf("alice %s: %s", flag, r.Stderr)
		require.Contains(t, r.Stderr, flag+" needs platform-admins", "the refusal names the argument")
	}
	after := e.Status(ref)
	require.Equal(t, lifecycle.DestroyFailed, after.State, "nothing changed")
	require.Equal(t, st.Operation.ID, after.Operation.ID)
	require.Equal(t, st.Operation.Attempt, after.Operation.Attempt, "the destroy did not resume")
	require.Equal(t, len(st.Decisions), len(after.Decisions), "no decision was recorded")
	for _, r := range e.Resources(web) {
		require.NotEqual(t, "terraform_data.alices", r.Address, "alice's HCL never ran")
	}

	// carol, a platform admin who did not ask for the destroy, reviews main and accepts it (through
	// the API: the CLI would follow the destroy, which now waits for a platform approval); the
	// destroy resumes past verify-render, and with her approval it applies.
	code, body := postAs(t, w.url+"/v1/instances/acme/web/decisions/resolve", w.carol,
		`{"request":{"reason":"reviewed alice's main.tf","acceptRender":true}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	var hash string
	require.Eventually(t, func() bool {
		if a := e.Status(ref).Approval; a != nil {
			hash = a.Hash
		}
		return hash != ""
	}, time.Minute, 100*time.Millisecond)
	st = e.Status(ref)
	require.Equal(t, after.Operation.Attempt+1, st.Operation.Attempt, "the destroy resumed")
	last := st.Decisions[len(st.Decisions)-1]
	require.Equal(t, lifecycle.DecisionResolve, last.Decision)
	require.NotEmpty(t, last.AcceptedRender)
	w.as(w.carol, 0, "approve", ref, "--plan", hash)
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
}

// postAs POSTs body to url with tok as the bearer token and returns the status and the answer.
func postAs(t *testing.T, url, tok, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}
