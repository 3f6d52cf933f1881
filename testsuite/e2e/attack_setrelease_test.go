package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// A --set rollout plan checks each pinned instance against its release. alice pins
// acme/web to example@1.0.0, which lacks `tier` (main and 1.1.0 have it); bob's other/db runs 1.1.0.
// bob and mallory plan `--set tier=b` over every tenant: the refusal must not name acme/web or 1.0.0.
func TestAttackSetRolloutRefusalNamesNoOtherTenant(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob, w.carol = signIn(t, p, "alice"), signIn(t, p, "bob"), signIn(t, p, "carol")
	mallory := signIn(t, p, "mallory")
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	schema, err := os.ReadFile("../../examples/stacks/example/schema.yaml")
	require.NoError(t, err)
	s := string(schema)
	s = replaceOnce(s, "parameters:\n", "parameters:\n  - {name: tier, type: string, enum: [a, b], default: a}\n")
	testsuite.PushFiles(t, e.GitOpsRepo, "tier", map[string][]byte{"stacks/example/schema.yaml": []byte(s)})
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	w.as(w.alice, 0, "create", acmeWeb, "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	w.as(w.alice, 0, "deploy", acmeWeb, "--wait")
	w.as(w.bob, 0, "create", "other/db", "-f", writeFile(t, "stack: example@1.1.0\nparameters:\n  greeting: hi\n"), "--wait")
	w.as(w.bob, 0, "deploy", "other/db", "--wait")

	body := `{"id":"set-%s","stack":"example","set":[{"key":"tier","value":"b"}],"maxFailures":1%s}`
	for who, tok := range map[string]string{"bob": w.bob, "mallory": mallory} {
		for _, path := range []string{"/v1/rollouts/plan", "/v1/rollouts"} {
			code, b := httpAs(t, http.MethodPost, w.url+path, tok, sprintf(body, who, ""))
			t.Logf("%s %s: %d %s", who, path, code, b)
			assert.NotContains(t, b, "acme", "%s %s names acme", who, path)
			assert.NotContains(t, b, "1.0.0", "%s %s names acme's release", who, path)
		}
	}
	// The tenant field goes unchecked into the worker's visibility query (Tenant = '%s'): bob widens
	// his plan to acme. The server must refuse a tenant that is not a tenant name (400), as drift's
	// scope does; before, bob told acme's pin from a 409 (refused: acme/web runs 1.0.0, no tier) vs a
	// 200, and counted acme's instances from his own action's batch number (batch 2, not 1).
	for _, ten := range []string{"other' OR Tenant = 'acme", "other' OR Tenant = 'nobody"} {
		code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob, sprintf(body, "bob3", `,"tenant":"`+ten+`"`))
		t.Logf("bob tenant %q --set tier=b: %d %s", ten, code, b)
		assert.Equal(t, http.StatusBadRequest, code, "tenant %q: %s", ten, b)
	}
	gb := `{"stack":"example","set":[{"key":"greeting","value":"y"}],"batchSize":1,"order":"name","maxFailures":1,"tenant":"%s"}`
	code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob, sprintf(gb, "other' OR Tenant = 'acme"))
	t.Logf("bob --set greeting=y batch 1: %d %s", code, b)
	assert.NotContains(t, b, `"batch":2`, "bob's action's batch counts acme's instances")
	// And below the server: the list query keeps such a tenant one string (no tenant has that name).
	items, err := e.Client.List(context.Background(), client.ListFilter{Tenant: "other' OR Tenant = 'acme"})
	require.NoError(t, err)
	require.Empty(t, items, "the quote added a clause")
}

func replaceOnce(s, old, new string) string { return strings.Replace(s, old, new, 1) }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
