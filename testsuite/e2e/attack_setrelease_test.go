package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// PROBE (attack45): a --set rollout plan checks each pinned instance against its release. alice pins
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
	// bob's own tenant: his instance planned, acme's absent.
	code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob, sprintf(body, "bob2", `,"tenant":"other"`))
	t.Logf("bob tenant other: %d %s", code, b)
	assert.NotContains(t, b, "acme")
	// alice: her release refuses tier (goal 2: nothing 1.0.0 refuses is deployed).
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice, sprintf(body, "alice", `,"tenant":"acme"`))
	t.Logf("alice start acme: %d %s", code, b)
	// carol over every tenant: alice's pin refuses the fleet plan (goal 3).
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.carol, sprintf(body, "carol", ""))
	t.Logf("carol all: %d %s", code, b)
	// alice, with tenant as an injected query, tries to widen her scope.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.alice, sprintf(body, "alice3", `,"tenant":"acme' OR Tenant = 'other"`))
	t.Logf("alice injected tenant: %d %s", code, b)
	assert.NotContains(t, b, "other/db")
}

func replaceOnce(s, old, new string) string { return strings.Replace(s, old, new, 1) }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
