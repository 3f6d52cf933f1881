package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// The attack of security.md cases 44 and 45: what a person may put in POST /v1/rollouts, and what the rollout routes say about an
// ID of another tenant's rollout. Secure behaviour (P2, docs/api.md's table): a field only slipway
// sets (an undo's `pins` and `undoes`) is refused from people with 400 naming it; a rollout ID
// is a label as the undo's and the preview's are (400 naming `id`); bob's pause/resume/abort/
// approve-fingerprint of acme's rollout answer as for an unknown ID (nothing confirms it exists).
func TestAttackRolloutStartTakesNoFieldOnlySlipwaySets(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob, w.carol = signIn(t, p, "alice"), signIn(t, p, "bob"), signIn(t, p, "carol")
	mallory := signIn(t, p, "mallory")
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	w.as(w.alice, 0, "create", acmeWeb, "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	w.as(w.alice, 0, "deploy", acmeWeb, "--wait")
	w.as(w.bob, 0, "create", "other/db", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hi\n"), "--wait")
	w.as(w.bob, 0, "deploy", "other/db", "--wait")

	// alice's upgrade of acme, to completion.
	code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice, `{"id":"rt-acme-up","stack":"example","tenant":"acme","to":"1.1.0","maxFailures":1}`)
	require.Equal(t, http.StatusCreated, code, b)
	require.Equal(t, contract.PhaseCompleted, waitRolloutPhase(t, e, "rt-acme-up", contract.PhaseCompleted))

	// 1. bob's verbs on acme's rollout, and on an unknown ID.
	for _, verb := range []string{"pause", "resume", "abort", "approve-fingerprint"} {
		body := `{"reason":"x"}`
		if verb == "approve-fingerprint" {
			body = `{"fingerprint":"000000000000"}`
		}
		ca, ba := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-acme-up/"+verb, w.bob, body)
		cu, bu := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-unknown-x/"+verb, w.bob, body)
		t.Logf("bob %s acme's: %d %s", verb, ca, ba)
		t.Logf("bob %s unknown: %d %s", verb, cu, bu)
		assert.Equal(t, cu, ca, "bob %s: acme's rollout ID answers unlike an unknown one", verb)
		cm, bm := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-acme-up/"+verb, mallory, body)
		t.Logf("mallory %s acme's: %d %s", verb, cm, bm)
	}
	// bob reuses acme's rollout ID for his own tenant.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.bob, `{"id":"rt-acme-up","stack":"example","tenant":"other","to":"1.1.0","maxFailures":1}`)
	t.Logf("bob start his own rollout under acme's ID: %d %s", code, b)
	assert.NotEqual(t, http.StatusCreated, code, b)

	// 2. alice sends an undo's fields herself: pins and undoes are slipway's.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice,
		`{"id":"rt-alice-pins","stack":"example","tenant":"acme","pins":{"acme/web":"1.1.0"},"undoes":"rt-carols-rollout","maxFailures":1}`)
	t.Logf("alice start with pins/undoes: %d %s", code, b)
	assert.Equal(t, http.StatusBadRequest, code, "pins and undoes are fields only slipway sets: %s", b)
	if code == http.StatusCreated {
		st, err := e.Client.RolloutStatus(context.Background(), "rt-alice-pins")
		if err == nil {
			t.Logf("rt-alice-pins spec: undoes=%q pins=%v", st.Spec.Undoes, st.Spec.Pins)
		}
	}
	// alice pins bob's instance through pins under her own tenant.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice,
		`{"id":"rt-alice-pins2","stack":"example","tenant":"acme","pins":{"other/db":"1.1.0"},"maxFailures":1}`)
	t.Logf("alice start pinning other/db: %d %s", code, b)
	assert.NotEqual(t, http.StatusCreated, code, b)
	assert.NotContains(t, b, "other/db")

	// 3. Rollout IDs that are not labels.
	for _, id := range []string{"rt-a/b", "rt-a\\u0000b", "rt-\\u00e9", "RT-UP", "rt-a b", "rt-" + strings.Repeat("x", 300), "Deadline-1a2b3c4d-1", " deadline-1a2b3c4d-1"} {
		code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice, `{"id":"`+id+`","stack":"example","tenant":"acme","to":"1.1.0","maxFailures":1}`)
		t.Logf("alice start id %q: %d %.300s", id, code, b)
		assert.Equal(t, http.StatusBadRequest, code, "id %q: %s", id, b)
	}
}
