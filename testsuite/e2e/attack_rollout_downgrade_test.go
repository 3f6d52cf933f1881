package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// A rollout plan is a read kept to the tenants the person may read (docs/fleet.md, case 17). bob
// (tenant other) and mallory (no group) plan an upgrade of every instance of the example stack to
// an older release, `POST /v1/rollouts/plan` and `POST /v1/rollouts` with `to` and no tenant: the
// downgrade refusal must not name acme's instance or the release it runs. Before the fix the 400
// said "--to 1.0.0: older than the release acme/web runs (1.1.0)".
func TestAttackRolloutDowngradeRefusalNamesNoOtherTenant(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob = signIn(t, p, "alice"), signIn(t, p, "bob")
	mallory := signIn(t, p, "mallory")
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	w.as(w.alice, 0, "create", acmeWeb, "-f", writeFile(t, "stack: example@1.1.0\nparameters:\n  greeting: hello\n  replicas: 1\n"), "--wait")
	w.as(w.alice, 0, "deploy", acmeWeb, "--wait")

	for who, tok := range map[string]string{"bob": w.bob, "mallory": mallory} {
		for _, path := range []string{"/v1/rollouts/plan", "/v1/rollouts"} {
			code, body := httpAs(t, http.MethodPost, w.url+path, tok, `{"id":"down-`+who+`","stack":"example","to":"1.0.0","maxFailures":1}`)
			assert.NotContains(t, body, "acme", "%s %s (%d) names acme's instance: %s", who, path, code, body)
			assert.NotContains(t, body, "1.1.0", "%s %s (%d) names the release acme runs: %s", who, path, code, body)
		}
	}
	// alice, who reads acme, is told which instance and why.
	code, body := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.alice, `{"stack":"example","tenant":"acme","to":"1.0.0","maxFailures":1}`)
	assert.Equal(t, http.StatusConflict, code, body)
	assert.Contains(t, body, "older than the release acme/web runs (1.1.0)")
}
