package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
)

// Attack (P4, every read is a decision): bob (tenant other) may not read acme's status, but an
// instance gate is a question to its target. He gates his own instance on acme's failed one,
// instance:acme/leaky, deploys it so it waits there, and the target answers his gate with its
// failure: state, step and terraform's message, which may quote a secret. Its Ready clearing the
// gate would tell him more. An instance gate names an instance of the same tenant, as a
// dependency does: refused through the server (exit 2, naming it) and in an instance file (exit 2,
// naming schedulingGates[0]); nothing of acme's reaches bob.
func TestAttackForeignInstanceGateReadsAnotherTenantsFailure(t *testing.T) {
	const secret = "token=sk_live_9c0ffee4acme"
	w := newPeople(t)
	e := w.e
	tf := strings.Replace(brokenTF, "echo provisioning failed", "echo provisioning failed with "+secret, 1)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the broken stack", map[string][]byte{
		"stacks/broken/schema.yaml":             []byte(brokenSchema),
		"stacks/broken/terraform/main.tf.tmpl":  []byte(tf),
		"stacks/broken/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	w.as(w.alice, 0, "create", "acme/leaky", "-f", writeFile(t, "stack: broken\nparameters:\n  greeting: hello\n"), "--wait")
	w.as(w.alice, 1, "deploy", "acme/leaky", "--wait")
	require.Contains(t, w.as(w.alice, 0, "status", "acme/leaky", "-o", "json", "--detail", "all").Stdout, secret, "alice reads her own failure")

	own := "stack: example\nparameters:\n  greeting: bonjour\n  replicas: 1\n"
	w.as(w.bob, 0, "create", "other/db", "-f", writeFile(t, own), "--wait")
	w.as(w.bob, 3, "status", "acme/leaky") // the front door is shut

	leaked := func() string {
		out := w.as(w.bob, 0, "status", "other/db", "-o", "json", "--detail", "all").Stdout +
			w.as(w.bob, 0, "gate", "list", "other/db").Stdout
		if strings.Contains(out, secret) || strings.Contains(out, "DeploymentFailed") {
			return out
		}
		return ""
	}
	// Through the server: the gate is refused before it is set.
	t.Setenv("SLIPWAY_TOKEN", w.bob)
	r := e.CLI("--server", w.url, "gate", "add", "other/db", "instance:acme/leaky")
	if r.Code == 0 {
		// The old code took it: his deploy waits at the gate and asks acme/leaky, which answers.
		w.as(w.bob, 0, "deploy", "other/db")
		var out string
		require.Eventually(t, func() bool { out = leaked(); return out != "" }, 30*time.Second, 500*time.Millisecond)
		w.as(w.bob, 0, "cancel", "other/db")
		t.Fatalf("bob read acme/leaky's failure through his own gate:\n%s", out)
	}
	require.Equal(t, 2, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "instance:acme/leaky")
	require.Contains(t, r.Stderr, "tenant other")

	// Through the instance file: refused naming the field, nothing waits, nothing is asked.
	r = w.as(w.bob, 2, "deploy", "other/db", "-f", writeFile(t, own+"schedulingGates: [\"instance:acme/leaky\"]\n"))
	require.Contains(t, r.Stderr, "schedulingGates[0]")
	require.Contains(t, r.Stderr, "tenant other")
	require.Empty(t, leaked())
	// His own tenant's instance gate still works.
	w.as(w.bob, 0, "gate", "add", "other/db", "instance:other/net")
	w.as(w.bob, 0, "gate", "remove", "other/db", "instance:other/net")
}
