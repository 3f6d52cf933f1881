package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// emcoSecretValue is a value a stack's manifest Secret carries; no status output may print it.
const emcoSecretValue = "tok-e2e-7f3a9c"

const emcoSecretManifest = `apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: {{ .Namespace }}
stringData:
  token: ` + emcoSecretValue + "\n"

// EMCO's status on real ArgoCD: detail shows each resource's live metadata, spec and status
// (a Secret masked), rsync the rendered objects with their rsync-status and its counts but no
// cluster status, summary both counts; a stack's
// sync: makes ArgoCD put back a hand-made change (self-heal) while status still reports; list
// --stack counts the fleet; archive leaves the resources Terminated.
func TestEMCOStatusOnArgoCD(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	pushPlacedStack(t, e, "emco", "sync:\n  automated: true\n  selfHeal: true\n")
	testsuite.PushFiles(t, e.GitOpsRepo, "emco: a manifest Secret", map[string][]byte{
		"stacks/emco/manifests/secret.yaml.tmpl": []byte(emcoSecretManifest)})
	e.MustCLI(0, "create", "emco/web", "-f", writeFile(t, "stack: emco\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "emco/web", "--wait")
	ns := "emco-web"
	leak := func(out string) {
		t.Helper()
		require.NotContains(t, out, emcoSecretValue)
		require.NotContains(t, out, base64.StdEncoding.EncodeToString([]byte(emcoSecretValue)))
	}
	byKind := func(st contract.Status) map[string]contract.ResourceView {
		out := map[string]contract.ResourceView{}
		for _, a := range st.Resources {
			for _, c := range a.Clusters {
				for _, r := range c.Resources {
					out[r.GVK.Kind] = r
				}
			}
		}
		return out
	}

	t.Run("summary counts rsync-status and cluster-status", func(t *testing.T) {
		var st contract.Status
		require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "status", "emco/web", "-o", "json").Stdout), &st))
		require.Equal(t, map[string]int{"Applied": 2}, st.RsyncStatus)
		require.Equal(t, map[string]int{"Present": 2}, st.ClusterStatus)
		require.Empty(t, st.Resources, "summary lists no resources")
	})

	t.Run("detail shows live objects, the Secret masked", func(t *testing.T) {
		out := e.MustCLI(0, "status", "emco/web", "--detail", "detail", "-o", "json").Stdout
		leak(out)
		var st contract.Status
		require.NoError(t, json.Unmarshal([]byte(out), &st))
		require.Empty(t, st.ResourcesError)
		rs := byKind(st)
		cm := rs["ConfigMap"]
		require.Contains(t, compact(t, cm.Metadata), `"resourceVersion"`, "live metadata, as the cluster holds it")
		require.Contains(t, compact(t, cm.Spec), `"greeting":"hello"`)
		sec := rs["Secret"]
		require.Contains(t, compact(t, sec.Metadata), `"name":"creds"`)
		require.Contains(t, compact(t, sec.Spec), `"token":"[masked]"`)
		text := e.MustCLI(0, "status", "emco/web", "--detail", "detail").Stdout
		leak(text)
		require.Contains(t, text, "app web:\n  cluster in-cluster:\n")
	})

	t.Run("rsync shows the rendered objects and rsync-status without status", func(t *testing.T) {
		out := e.MustCLI(0, "status", "emco/web", "--detail", "rsync", "-o", "json").Stdout
		leak(out)
		var st contract.Status
		require.NoError(t, json.Unmarshal([]byte(out), &st))
		cm := byKind(st)["ConfigMap"]
		require.Contains(t, compact(t, cm.Spec), `"greeting":"hello"`)
		require.NotContains(t, compact(t, cm.Metadata), `"resourceVersion"`, "rendered, not live")
		require.Empty(t, cm.Status)
		require.Empty(t, cm.ClusterStatus)
		require.Equal(t, "Applied", cm.RsyncStatus, "EMCO's rsync output keeps each resource's rsync-status")
		require.Positive(t, st.RsyncStatus["Applied"], "and the counts")
		require.Empty(t, st.ClusterStatus)
		require.Contains(t, compact(t, byKind(st)["Secret"].Spec), "[masked]")
	})

	t.Run("self-heal puts back a change made by hand", func(t *testing.T) {
		_, app := stack.Argo(t, http.MethodGet, "/api/v1/applications/emco-web", nil)
		require.Contains(t, string(app), `"selfHeal":true`, "the stack's sync: is on the Application")
		code, body := stack.Kube(t, http.MethodPatch, "/api/v1/namespaces/"+ns+"/configmaps/app",
			"application/merge-patch+json", []byte(`{"data":{"greeting":"tampered"}}`))
		require.Equal(t, http.StatusOK, code, string(body))
		healed := time.Now()
		require.Eventually(t, func() bool { return configMap(t, stack, ns)["greeting"] == "hello" }, 2*time.Minute, time.Second,
			"ArgoCD self-heal restores the ConfigMap")
		t.Logf("hand change to healed: %s", time.Since(healed).Round(time.Millisecond))
		// ArgoCD compares the app again a moment after its self-heal sync: until then it reads OutOfSync.
		var out string
		require.Eventually(t, func() bool {
			r := e.CLI("status", "emco/web", "--refresh")
			out = r.Stdout
			return r.Code == 0 && strings.Contains(out, "refresh: observed True/Healthy")
		}, time.Minute, time.Second, "the observer still reports")
		t.Logf("hand change to observed healthy again: %s", time.Since(healed).Round(time.Millisecond))
		require.Equal(t, lifecycle.ConditionTrue, condition(e.Status("emco/web").Conditions, lifecycle.CondReady))
	})

	t.Run("fleet counts", func(t *testing.T) {
		var counts []client.StackCount
		require.Eventually(t, func() bool {
			r := e.MustCLI(0, "list", "--stack", "emco", "--counts", "-o", "json")
			counts = nil
			return json.Unmarshal([]byte(r.Stdout), &counts) == nil && len(counts) == 2 && counts[0].Ready == 1
		}, 10*time.Second, 200*time.Millisecond)
		require.Equal(t, int64(1), counts[0].Total)
		require.Equal(t, int64(1), counts[0].Updated)
		require.Equal(t, "emco", counts[1].Tenant)
		require.Equal(t, int64(1), counts[1].Ready)
		require.Contains(t, counts[0].Queries["ready"], "InstanceReady = 'True'", "the same query the UI runs")
		text := e.MustCLI(0, "list", "--stack", "emco").Stdout
		require.Contains(t, text, "STACK  TENANT  READY  UPDATED  TOTAL")

		r := e.MustCLI(2, "list", "--stack", "nosuch")
		require.Contains(t, r.Stderr, "--stack")
		require.Contains(t, r.Stderr, "nosuch")
		r = e.MustCLI(2, "status", "emco/web", "--detail", "everything")
		require.Contains(t, r.Stderr, "--detail")
	})

	t.Run("archive and destroy leave the resources Terminated", func(t *testing.T) {
		e.MustCLI(0, "archive", "emco/web", "--wait")
		st := e.Status("emco/web")
		require.Equal(t, lifecycle.Archived, st.State)
		require.Equal(t, map[string]int{"Terminated": 2}, st.RsyncStatus)
		require.Equal(t, map[string]int{"NotPresent": 2}, st.ClusterStatus)
		require.Len(t, byKind(st), 2, "removed resources are shown, not gone")
		out := e.MustCLI(0, "status", "emco/web", "--detail", "all").Stdout
		require.True(t, strings.Contains(out, "ConfigMap/app Terminated NotPresent"), out)

		e.MustCLI(0, "deploy", "emco/web", "--wait")
		require.Equal(t, map[string]int{"Applied": 2}, e.Status("emco/web").RsyncStatus, "deployed again")
		e.MustCLI(0, "destroy", "emco/web", "--wait")
		st = e.Status("emco/web")
		require.Equal(t, lifecycle.Destroyed, st.State)
		require.Equal(t, map[string]int{"Terminated": 2}, st.RsyncStatus, "destroy, too")
		require.Equal(t, map[string]int{"NotPresent": 2}, st.ClusterStatus)
	})

	t.Run("an unreachable cluster makes its resources Retrying", func(t *testing.T) {
		e.MustCLI(0, "create", "emco/far", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
		e.MustCLI(0, "deploy", "emco/far", "--wait")
		// A cluster registered in ArgoCD whose API server nobody answers, and the app moved there
		// (its project allows it): ArgoCD reports the cluster unreachable.
		far := "https://127.0.0.1:1"
		stack.Apply(t, []byte(`apiVersion: v1
kind: Secret
metadata:
  name: far
  namespace: argocd
  labels:
    argocd.argoproj.io/secret-type: cluster
stringData:
  name: far
  server: `+far+`
  config: '{"tlsClientConfig":{"insecure":true}}'
`))
		patch := func(path, body string) {
			code, resp := stack.Kube(t, http.MethodPatch, path, "application/merge-patch+json", []byte(body))
			require.Equal(t, http.StatusOK, code, string(resp))
		}
		patch("/apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects/slipway-emco",
			`{"spec":{"destinations":[{"server":"https://kubernetes.default.svc","namespace":"emco-far"},{"server":"`+far+`","namespace":"emco-far"}]}}`)
		patch("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/emco-far",
			`{"spec":{"destination":{"server":"`+far+`","namespace":"emco-far"}}}`)
		t.Cleanup(func() {
			if t.Failed() {
				_, app := stack.Argo(t, http.MethodGet, "/api/v1/applications/emco-far", nil)
				var a map[string]any
				_ = json.Unmarshal(app, &a)
				status, _ := json.Marshal(a["status"])
				t.Logf("application status: %s", status)
			}
		})
		var st contract.Status
		var out string
		require.Eventually(t, func() bool {
			out = e.MustCLI(0, "status", "emco/far", "--refresh", "--detail", "detail", "-o", "json").Stdout
			st = contract.Status{}
			return json.Unmarshal([]byte(out), &st) == nil && st.RsyncStatus["Retrying"] > 0
		}, 60*time.Second, time.Second, "status never showed Retrying: %s", out)
		require.Equal(t, map[string]int{"Unknown": 1}, st.ClusterStatus, "nobody can see the cluster")
		cm := byKind(st)["ConfigMap"]
		require.Equal(t, "Retrying", cm.RsyncStatus)
		require.Contains(t, cm.Message, "cluster unreachable")
		require.NotEqual(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady), "not Ready while its cluster is down")
		t.Logf("unreachable: %s", cm.Message)
	})
}

// compact is JSON as one line, as the assertions spell it.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if len(raw) > 0 {
		require.NoError(t, json.Compact(&b, raw))
	}
	return b.String()
}
