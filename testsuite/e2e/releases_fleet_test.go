package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// fleetWatch is each wave's watch: long enough for a patched Deployment to pass its progress
// deadline, ArgoCD to call it Degraded and the observer to see it (about 4s), short for CI.
const fleetWatch = 10 * time.Second

// fleetStack is the example stack with a stateful terraform_data.db and a Deployment that can go
// Degraded (replicas 0, so it is Healthy with no scheduler, until someone scales it). release is
// what the ConfigMap says it was rendered from; app and db change the terraform between releases.
func fleetStack(t *testing.T, release, app, db, extra string) map[string][]byte {
	base := filepath.Join("..", "..", "examples", "stacks", "example")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(base, name))
		require.NoError(t, err)
		return string(b)
	}
	tf := strings.Replace(read("terraform/main.tf.tmpl"), "    debug    = {{ .Params.debug }}\n", "    debug    = {{ .Params.debug }}\n"+app, 1)
	return map[string][]byte{
		"stacks/web/schema.yaml":                  []byte(read("schema.yaml") + "stateful: [terraform_data.db]\n" + extra),
		"stacks/web/terraform/main.tf.tmpl":       []byte(tf + "\nresource \"terraform_data\" \"db\" {\n  triggers_replace = " + db + "\n}\n"),
		"stacks/web/manifests/app.yaml.tmpl":      []byte(read("manifests/app.yaml.tmpl") + "  release: " + release + "\n"),
		"stacks/web/manifests/workload.yaml.tmpl": []byte(workloadManifest),
	}
}

// Issue 37's whole demonstration in one test, on the real dev server, git, terraform and ArgoCD
// on the kube-apiserver. 1.0.0 and 1.1.0 of stack web are cut (1.1.0 changes terraform_data.app
// everywhere, replaces the stateful terraform_data.db where debug is on, and asks for an approval
// of every deploy); main then moves on unreleased. 20 instances in 3 tenants run 1.0.0. The
// preview shows two plan shapes, the replace flagged stateful. The upgrade rollout's canary waits
// with the update-only shape; carol approves that shape once; the canary deploys and, during its
// watch, its Deployment is scaled out of band and goes Degraded: the rollout pauses, naming it.
// Meanwhile a tenant's deploy -f renders its pinned 1.0.0, not main's head. The Deployment is
// healed, the rollout resumed; in wave 2 the update-only shape goes ahead on its own and the two
// debug instances wait, named, until carol approves their shape; the rollout completes with every
// instance on 1.1.0 in git and in the cluster; a rollout --to 1.0.0 (a downgrade, allowed
// explicitly) brings all 20 back. Each phase logs its duration.
func TestStackReleaseFleetUpgradeOnArgoCDFromPreviewToRollback(t *testing.T) {
	begin := time.Now()
	phase := func(name string, since time.Time) time.Time {
		t.Logf("phase %-28s %s", name, time.Since(since).Round(100*time.Millisecond))
		return time.Now()
	}
	kube := cluster.Start(t)
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", kube.ArgoURL, kube.ArgoToken
		o.ObserveInterval = observeInterval
	})
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.carol = signIn(t, p, "carol")
	at := phase("setup", begin)

	testsuite.PushFiles(t, e.GitOpsRepo, "web 1.0", fleetStack(t, `"1.0"`, "", `"v1"`, ""))
	e.MustCLI(0, "stack", "release", "web", "1.0.0", "--notes", "a database and a workload")
	testsuite.PushFiles(t, e.GitOpsRepo, "web 1.1: a tier, a new database where debug is on, approvals",
		fleetStack(t, `"1.1"`, "    tier     = \"1.1\"\n", `{{ if .Params.debug }}"v2"{{ else }}"v1"{{ end }}`, "approval: {policy: always}\n"))
	e.MustCLI(0, "stack", "release", "web", "1.1.0", "--notes", "tier; debug instances get a new database")
	testsuite.PushFiles(t, e.GitOpsRepo, "web: unreleased work on main",
		fleetStack(t, `"head"`, "    tier     = \"head\"\n", `"v3"`, ""))
	at = phase("releases", at)

	// 20 instances, tenants in turn; two run with debug on (the replace group).
	const n = 20
	tenants := []string{"acme", "beta", "gamma"}
	ref := func(i int) string { return fmt.Sprintf("%s/web-%02d", tenants[i%3], i) }
	debug := map[string]bool{ref(4): true, ref(8): true}
	file := func(i int, release, greeting string) string {
		return writeFile(t, fmt.Sprintf("stack: web@%s\nparameters:\n  greeting: %s\n  debug: %t\n", release, greeting, debug[ref(i)]))
	}
	forEach(t, n, 10, func(i int) {
		e.MustCLI(0, "create", ref(i), "-f", file(i, "1.0.0", "hello"), "--wait")
		e.MustCLI(0, "deploy", ref(i), "--wait")
	})
	namespaces := map[string]string{}
	for i := range n {
		namespaces[ref(i)] = e.Status(ref(i)).Names.Namespace
	}
	skew := func() map[string]client.ReleaseCount {
		var counts []client.ReleaseCount
		require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "stack", "status", "web", "-o", "json").Stdout), &counts))
		out := map[string]client.ReleaseCount{}
		for _, c := range counts {
			out[c.Release+" "+c.Tenant] = c
		}
		return out
	}
	require.Eventually(t, func() bool {
		s := skew()
		return len(s) == 3 && s["web@1.0.0 acme"].Ready == 7 && s["web@1.0.0 beta"].Ready == 7 && s["web@1.0.0 gamma"].Ready == 6
	}, time.Minute, 200*time.Millisecond, "stack status: 20 Ready on 1.0.0 in 3 tenants")
	at = phase("fleet of 20 on 1.0.0", at)

	out := w.as(w.carol, 0, "stack", "preview", "web", "--to", "1.1.0", "--concurrency", "10", "-o", "json")
	var pv contract.PreviewResult
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &pv), out.Stdout)
	require.Len(t, pv.Groups, 2, "two plan shapes: %+v; %+v", pv.Groups, pv.Instances)
	update, replace := pv.Groups[0], pv.Groups[1]
	require.Equal(t, 18, update.Count)
	require.Empty(t, update.Stateful)
	require.Equal(t, 2, replace.Count)
	require.ElementsMatch(t, []contract.Ref{mustRef(t, ref(4)), mustRef(t, ref(8))}, replace.Instances)
	require.Equal(t, []string{"terraform_data.db"}, replace.Stateful, "the replace of a stateful resource is flagged")
	require.Contains(t, replace.Summary, "replace terraform_data.db")
	require.Contains(t, e.MustCLI(0, "stack", "preview", "show", pv.Spec.ID).Stdout, "stateful!")
	at = phase("preview", at)

	// The canary (acme/web-00, first by name) waits with the update-only shape; carol approves it once.
	canary := ref(0)
	e.MustCLI(0, "rollout", "start", "--stack", "web", "--to", "1.1.0", "--canary", "1", "--batch", "19",
		"--watch", fleetWatch.String(), "--id", "up")
	var ro contract.RolloutStatus
	require.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, "up")
		return len(ro.Groups) == 1
	}, time.Minute, 200*time.Millisecond, "the canary's deploy waits for approval")
	require.Equal(t, update.Hash, ro.Groups[0].Fingerprint, "the rollout's shape is the preview's")
	require.Equal(t, []string{canary}, ro.Groups[0].Refs)
	require.Regexp(t, canary+`\s.*awaits approval of plan shape `+update.Hash, e.MustCLI(0, "rollout", "status", "up").Stdout)
	w.as(w.carol, 0, "rollout", "approve", "up", "--fingerprint", update.Hash, "--reason", "tier only, as previewed")
	require.Eventually(t, func() bool {
		return strings.Contains(rolloutStatus(t, e, "up").Reason, "watching wave 1")
	}, time.Minute, 200*time.Millisecond, "the canary deployed and its watch began")
	at = phase("canary approved and deployed", at)

	// Scaled and restarted out of band: a Deployment rollout that can never finish goes Degraded.
	degraded := time.Now()
	patchDeployment(t, kube, namespaces[canary], `{"spec":{"replicas":1,"template":{"metadata":{"annotations":`+
		`{"kubectl.kubernetes.io/restartedAt":"`+time.Now().UTC().Format(time.RFC3339)+`"}}}}}`)
	waitCondition(t, e, canary, lifecycle.CondRunning, "False/Degraded", fleetWatch)
	t.Logf("patched to Running=False (Degraded) in status: %s", time.Since(degraded).Round(100*time.Millisecond))
	require.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, "up")
		return ro.Phase == contract.PhasePaused
	}, fleetWatch, 200*time.Millisecond, "the watch sees the canary turn un-Ready")
	t.Logf("patched to paused: %s", time.Since(degraded).Round(100*time.Millisecond))
	require.Contains(t, ro.Reason, "wave 1: "+canary+" went un-Ready during the watch: Ready=False")
	require.Equal(t, contract.RolloutPending, ro.Find(mustRef(t, ref(1))).Status, "wave 2 waits")
	require.Eventually(t, func() bool {
		s := skew()
		return s["web@1.1.0 acme"].Total == 1 && s["web@1.0.0 acme"].Total == 6
	}, 20*time.Second, 200*time.Millisecond, "stack status shows the skew: the canary on 1.1.0")
	at = phase("canary degraded, paused", at)

	// A tenant changes a parameter mid-rollout: the render is its pinned 1.0.0, not main's head.
	tenant := ref(2)
	e.MustCLI(0, "deploy", tenant, "-f", file(2, "1.0.0", "hola"), "--wait")
	cm := configMap(t, kube, namespaces[tenant])
	require.Equal(t, "hola", cm["greeting"])
	require.Equal(t, "1.0", cm["release"], "deploy -f renders the pinned release, not main's head")
	tfm := testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/"+tenant+"/terraform/main.tf")
	require.NotContains(t, tfm, "tier")
	require.NotContains(t, tfm, "v3")
	at = phase("tenant deploy -f", at)

	// Healed (scaled back), the canary is Ready again; resume goes on to wave 2.
	patchDeployment(t, kube, namespaces[canary], `{"spec":{"replicas":0}}`)
	waitCondition(t, e, canary, lifecycle.CondReady, "True/ProgrammedAndRunning", time.Minute)
	e.MustCLI(0, "rollout", "resume", "up", "--reason", "canary healed")
	var waiting []string
	require.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, "up")
		waiting = nil
		for _, in := range ro.Instances {
			if in.Awaiting != nil {
				waiting = append(waiting, in.Ref.String())
			}
		}
		return len(waiting) == 2 && ro.Updated == 18
	}, 2*time.Minute, 200*time.Millisecond, "18 updated; the two debug instances wait")
	require.ElementsMatch(t, []string{ref(4), ref(8)}, waiting)
	text := e.MustCLI(0, "rollout", "status", "up").Stdout
	for r := range debug {
		require.Regexp(t, r+`\s.*awaits approval of plan shape `+replace.Hash, text)
	}
	require.Contains(t, text, update.Hash+"  18 instance(s)")
	at = phase("resumed, wave 2 to the replace", at)

	w.as(w.carol, 0, "rollout", "approve", "up", "--fingerprint", replace.Hash, "--reason", "the debug databases are scratch")
	// Two replaces, then the wave's Ready read every 10s and its watch: allow for a loaded machine.
	assert.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, "up")
		return ro.Phase != contract.PhaseRunning
	}, 4*time.Minute, 500*time.Millisecond, "the rollout ends")
	require.Equal(t, contract.PhaseCompleted, ro.Phase, "the rollout completes: %s", ro.Reason)
	require.Equal(t, []string{"1: 1/1/20", "2: 20/20/20"}, batchCounts(ro.Ended))
	pinned(t, e, kube, n, ref, namespaces, "1.1.0", "1.1")
	require.Equal(t, "hola", configMap(t, kube, namespaces[tenant])["greeting"], "the re-pin keeps the tenant's change")
	at = phase("approved, completed on 1.1.0", at)

	// The rollback: every instance back to 1.0.0 at once (an older --to is a downgrade, said so).
	r := e.MustCLI(2, "rollout", "start", "--stack", "web", "--to", "1.0.0", "--id", "down")
	require.Contains(t, r.Stderr, "--allow-downgrade")
	e.MustCLI(0, "rollout", "start", "--stack", "web", "--to", "1.0.0", "--allow-downgrade", "--batch", "20", "--id", "down", "--wait")
	pinned(t, e, kube, n, ref, namespaces, "1.0.0", "1.0")
	require.Eventually(t, func() bool {
		s := skew()
		return len(s) == 3 && s["web@1.0.0 acme"].Ready == 7 && s["web@1.0.0 beta"].Ready == 7 && s["web@1.0.0 gamma"].Ready == 6
	}, time.Minute, 200*time.Millisecond, "stack status: all 20 back on 1.0.0")
	require.Equal(t, "hola", configMap(t, kube, namespaces[tenant])["greeting"], "the rollback keeps the tenant's change")
	phase("rolled back to 1.0.0", at)
	phase("total", begin)
}

// pinned checks that every instance's file pins release and its ConfigMap was rendered from it.
func pinned(t *testing.T, e *testsuite.Env, kube *cluster.Stack, n int, ref func(int) string, namespaces map[string]string, release, cm string) {
	t.Helper()
	for i := range n {
		require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/"+ref(i)+"/instance.yaml"), "stack: web@"+release, ref(i))
		require.Equal(t, cm, configMap(t, kube, namespaces[ref(i)])["release"], ref(i))
	}
}

func patchDeployment(t *testing.T, kube *cluster.Stack, ns, patch string) {
	t.Helper()
	code, body := kube.Kube(t, http.MethodPatch, "/apis/apps/v1/namespaces/"+ns+"/deployments/web", "application/merge-patch+json", []byte(patch))
	require.Equal(t, http.StatusOK, code, string(body))
}

func mustRef(t *testing.T, s string) contract.Ref {
	r, err := contract.ParseRef(s)
	require.NoError(t, err)
	return r
}
