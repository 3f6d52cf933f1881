package e2e

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// The attack of security.md cases 42 to 44: what bob (tenant other) learns of acme's instances, rollouts and previews through the
// rollout and preview routes of `slipway server`, and whose name a rollout's decision carries.
//
// acme runs acme/api and acme/web pinned to example@1.0.0 (no parameter `tier`; 1.1.0 has it);
// bob runs other/db on 1.1.0. alice starts rollout rt-acme-set (tenant acme, --set greeting,
// batch 1, pause after each batch) and preview rt-acme-prev. The secure behaviour (P4: every read
// is a decision, scoped to the tenants the person may read; docs/security.md case 41):
//   - bob's answers about acme's rollouts and previews do not depend on what acme has: an
//     existing acme rollout or preview answers as an unknown one, or 403 as any act on acme,
//     never its phase or kind;
//   - bob's plan over tenant acme is answered as over a tenant with no instances, and his start
//     refused (403), whatever acme's instances pin: not a 409 when an acme instance's release
//     refuses the --set and a 200/403 otherwise;
//   - a plan over every tenant is a read of every tenant: bob's is refused, so no batch number
//     of his counts acme's instances;
//   - a rollout's abort names the verified person who aborted, never a name from the body
//     (the CLI's --actor is only a note: "who asks is verified, never declared").
func TestAttackRolloutRoutesTellNothingOfAnotherTenant(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob, w.carol = signIn(t, p, "alice"), signIn(t, p, "bob"), signIn(t, p, "carol")
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	schema, err := os.ReadFile("../../examples/stacks/example/schema.yaml")
	require.NoError(t, err)
	s := replaceOnce(string(schema), "parameters:\n", "parameters:\n  - {name: tier, type: string, enum: [a, b], default: a}\n")
	testsuite.PushFiles(t, e.GitOpsRepo, "tier", map[string][]byte{"stacks/example/schema.yaml": []byte(s)})
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	for _, n := range []string{"acme/api", acmeWeb} {
		w.as(w.alice, 0, "create", n, "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
		w.as(w.alice, 0, "deploy", n, "--wait")
	}
	w.as(w.bob, 0, "create", "other/db", "-f", writeFile(t, "stack: example@1.1.0\nparameters:\n  greeting: hi\n"), "--wait")
	w.as(w.bob, 0, "deploy", "other/db", "--wait")

	// 1. bob plans over tenant acme by name: the plan route asks no policy. A --set that acme's
	// release refuses answers 409, one it accepts 200: bob learns acme pins a release without tier.
	tier := `{"stack":"example","tenant":"acme","set":[{"key":"tier","value":"b"}],"maxFailures":1}`
	greet := `{"stack":"example","tenant":"acme","set":[{"key":"greeting","value":"y"}],"maxFailures":1}`
	c1, b1 := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob, tier)
	c2, b2 := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob, greet)
	t.Logf("bob plan tenant acme tier=b: %d %s", c1, b1)
	t.Logf("bob plan tenant acme greeting=y: %d %s", c2, b2)
	assert.Equal(t, http.StatusOK, c1, "bob's plan over tenant acme is answered as one over a tenant with no instances: %s", b1)
	assert.Equal(t, c1, c2, "bob tells acme's pinned release from the answer to a plan over acme")
	assert.Equal(t, b1, b2, "bob tells acme's pinned release from the answer to a plan over acme")
	assert.NotContains(t, b1, "acme/")

	// 2. The same through the start route: planned before the policy is asked.
	c3, b3 := httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.bob, `{"id":"rt-bob-a1",`+tier[1:])
	c4, b4 := httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.bob, `{"id":"rt-bob-a2",`+greet[1:])
	t.Logf("bob start tenant acme tier=b: %d %s", c3, b3)
	t.Logf("bob start tenant acme greeting=y: %d %s", c4, b4)
	assert.Equal(t, http.StatusForbidden, c3, "bob starts over tenant acme: %s", b3)
	assert.Equal(t, c3, c4, "bob tells acme's pinned release from the answer to a start over acme")

	// 3. bob's fleet-wide plan, batch 1 by name: his other/db is after acme/api and acme/web.
	code, b := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/plan", w.bob,
		`{"stack":"example","set":[{"key":"greeting","value":"y"}],"batchSize":1,"order":"name","maxFailures":1}`)
	t.Logf("bob fleet-wide plan: %d %s", code, b)
	assert.Equal(t, http.StatusForbidden, code, "a plan over every tenant is a read of every tenant: %s", b)
	assert.NotContains(t, b, `"batch":3`, "bob's own action's batch number counts acme's two instances")
	assert.NotContains(t, b, "acme")

	// alice's rollout of acme, paused after its first batch.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts", w.alice,
		`{"id":"rt-acme-set","stack":"example","tenant":"acme","set":[{"key":"greeting","value":"z"}],"batchSize":1,"order":"name","pauseAfterBatch":true,"maxFailures":1}`)
	require.Equal(t, http.StatusCreated, code, b)
	phase := waitRolloutPhase(t, e, "rt-acme-set", contract.PhasePaused)
	require.Equal(t, contract.PhasePaused, phase)

	// 4. bob undoes acme's paused rollout: the route reads the rollout before any decision.
	cu, bu := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-acme-set/undo", w.bob, `{"id":"rt-bob-undo1"}`)
	cn, bn := httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-nothing-here/undo", w.bob, `{"id":"rt-bob-undo2"}`)
	t.Logf("bob undo acme's paused rollout: %d %s", cu, bu)
	t.Logf("bob undo an unknown rollout: %d %s", cn, bn)
	assert.Equal(t, http.StatusForbidden, cu, "bob undoes acme's rollout: %s", bu)
	assert.NotContains(t, bu, "Paused", "bob is told the phase of acme's rollout")

	// 5. carol aborts (only platform admins may: the rollout decides its updates on tenant *),
	// with another person's name in the body: whose decision does the rollout's status record?
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-acme-set/abort", w.carol, `{"actor":"alice","reason":"alice asked"}`)
	require.Equal(t, http.StatusOK, code, b)
	st, err := e.Client.RolloutStatus(context.Background(), "rt-acme-set")
	require.NoError(t, err)
	t.Logf("rollout reason after carol's abort: %q", st.Reason)
	assert.NotContains(t, st.Reason, "by alice", "the abort names alice, who never aborted it")
	assert.Contains(t, st.Reason, "carol", "the abort names the verified person who aborted")

	// 6. bob undoes it once ended: told it was a --set rollout.
	cu, bu = httpAs(t, http.MethodPost, w.url+"/v1/rollouts/rt-acme-set/undo", w.bob, `{"id":"rt-bob-undo3"}`)
	t.Logf("bob undo acme's aborted rollout: %d %s", cu, bu)
	assert.Equal(t, http.StatusForbidden, cu, "bob undoes acme's ended rollout: %s", bu)
	assert.NotContains(t, bu, "changed parameters", "bob is told what acme's rollout changed")

	// 7. alice's preview; bob asks for it under another stack and under its own, and for an unknown one.
	code, b = httpAs(t, http.MethodPost, w.url+"/v1/stacks/example/previews", w.alice, `{"id":"rt-acme-prev","to":"1.1.0","tenant":"acme","sample":1}`)
	require.Equal(t, http.StatusCreated, code, b)
	cw, bw := httpAs(t, http.MethodGet, w.url+"/v1/stacks/other/previews/rt-acme-prev", w.bob, "")
	cx, bx := httpAs(t, http.MethodGet, w.url+"/v1/stacks/other/previews/rt-no-prev", w.bob, "")
	t.Logf("bob show acme's preview under stack other: %d %s", cw, bw)
	t.Logf("bob show an unknown preview: %d %s", cx, bx)
	assert.Equal(t, cx, cw, "an existing acme preview answers unlike an unknown one")
	assert.Equal(t, strings.ReplaceAll(bx, "rt-no-prev", "ID"), strings.ReplaceAll(bw, "rt-acme-prev", "ID"), "an existing acme preview answers unlike an unknown one")
}

// waitRolloutPhase polls rollout id's phase until it is want or ended, up to 5 minutes.
func waitRolloutPhase(t *testing.T, e *testsuite.Env, id, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	var phase string
	for time.Now().Before(deadline) {
		st, err := e.Client.RolloutStatus(context.Background(), id)
		if err == nil {
			phase = st.Phase
			if phase == want || phase == contract.PhaseCompleted || phase == contract.PhaseAborted || phase == contract.PhaseStopped {
				return phase
			}
		}
		time.Sleep(2 * time.Second)
	}
	return phase
}
