package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// A stack places its instances on two clusters of one ArgoCD, one named and one selected by
// its labels: deploy syncs an Application on each (two real apiservers, each its own etcd).
// With the second apiserver down a deploy still succeeds on the first, reports the second's
// resources Retrying and leaves the instance not Ready; an instance first deployed while it is
// down is not Ready either. With it back the observer syncs both there, with no deploy, and they
// are Ready. Taking the cluster out of an instance's placement drains it (the stack's drain hook,
// told the cluster) and leaves no Application or namespace there. A destroy with the cluster down
// removes the app from the other, fails naming the cluster, and records what it left there as a
// leftover of that cluster (a retry once it answers removes it). Destroy removes the app and
// namespace from both. A selector that matches no cluster, or two clusters whose Applications
// would share a name, is refused at create with exit 2 naming the field.
func TestSeveralClustersDeployOneDownAndDestroy(t *testing.T) {
	// The drain hook's endpoint is this test's server on loopback, which the operator allows.
	t.Setenv("SLIPWAY_HOOK_ALLOW_CIDRS", "127.0.0.1")
	drains := &hookCalls{}
	srv := httptest.NewServer(drains)
	t.Cleanup(srv.Close)
	stack := cluster.Start(t)
	edge := stack.AddCluster(t, "edge", map[string]string{"tier": "edge"})
	onEdge := &cluster.Stack{Stack: edge.Stack}
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
		o.ObserveInterval = time.Second // a returning cluster is noticed by the observer's sweep
	})
	pushPlacedStack(t, e, "spread", "placement:\n  clusters: [in-cluster]\n  selector:\n    matchLabels: {tier: edge}\n"+
		"hooks:\n  drain:\n    http: \""+srv.URL+"/drain\"\n    deadline: 30s\n")
	pushPlacedStack(t, e, "nowhere", "placement:\n  selector:\n    matchLabels: {tier: moon}\n")
	pushPlacedStack(t, e, "ghostly", "placement:\n  clusters: [in-cluster, mars]\n")
	pushPlacedStack(t, e, "alike", "placement:\n  clusters: [Edge, edge]\n")

	for _, tc := range []struct{ stack, field, want string }{
		{"nowhere", "schema.placement.selector", "matchLabels tier=moon matches no cluster in ArgoCD (it has edge, in-cluster)"},
		{"ghostly", "schema.placement.clusters", `ArgoCD has no cluster "mars"`},
		{"alike", "schema.placement.clusters", `names "Edge" and "edge", whose Applications would have the same name`},
	} {
		r := e.MustCLI(2, "create", "lost/"+tc.stack, "-f", writeFile(t, "stack: "+tc.stack+"\nparameters:\n  greeting: hello\n"))
		require.Contains(t, r.Stderr, tc.field)
		require.Contains(t, r.Stderr, tc.want)
		require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/lost/"+tc.stack), "nothing reached the repo")
	}

	ref, ns := "wide/web", "wide-web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: spread\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	require.Equal(t, "1", configMap(t, stack, ns)["replicas"], "on the first cluster")
	require.Equal(t, "1", configMap(t, &cluster.Stack{Stack: edge.Stack}, ns)["replicas"], "and on the second")
	require.Equal(t, argocd.ApplicationDestination{Name: "edge", Namespace: ns}, argoApp(t, stack, "wide-web-edge").Spec.Destination)
	require.Equal(t, argocd.ApplicationDestination{Name: "in-cluster", Namespace: ns}, argoApp(t, stack, "wide-web-in-cluster").Spec.Destination)
	st := e.Status(ref)
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady))
	require.Equal(t, map[string]string{"edge": "Applied", "in-cluster": "Applied"}, rsyncByCluster(st))

	require.NoError(t, edge.StopAPIServer())
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: spread\nparameters:\n  greeting: hello\n  replicas: 2\n"), "--wait")
	require.Equal(t, "2", configMap(t, stack, ns)["replicas"], "the first cluster got the change")
	st = e.Status(ref)
	require.Equal(t, lifecycle.Deployed, st.State, "deploy did not fail")
	require.NotEqual(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady), "not Ready with a cluster down")
	require.Equal(t, map[string]string{"edge": "Retrying", "in-cluster": "Applied"}, rsyncByCluster(st))

	// An instance first deployed while the cluster is down gets its app there all the same, unsynced,
	// so nothing reports it Ready until a deploy reaches that cluster.
	e.MustCLI(0, "create", "late/web", "-f", writeFile(t, "stack: spread\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "late/web", "--wait")
	late := e.Status("late/web")
	require.NotEqual(t, lifecycle.ConditionTrue, condition(late.Conditions, lifecycle.CondReady))
	require.Equal(t, map[string]string{"edge": "Retrying", "in-cluster": "Applied"}, rsyncByCluster(late))
	require.Equal(t, argocd.ApplicationDestination{Name: "edge", Namespace: "late-web"}, argoApp(t, stack, "late-web-edge").Spec.Destination)

	require.NotEmpty(t, argoApp(t, stack, "wide-web-edge").Metadata.Labels[argocd.LabelBehind], "pointed at the deploy's revision, not synced")

	// Back: the observer syncs what each deploy left behind there, with no deploy (EMCO's rsync retries).
	require.NoError(t, edge.StartAPIServer(context.Background()))
	back := time.Now()
	require.Eventually(t, func() bool {
		return configMapValue(onEdge, "late-web", "replicas") == "1" && configMapValue(onEdge, ns, "replicas") == "2"
	}, 3*time.Minute, time.Second, "the returning cluster is synced without a deploy")
	require.Eventually(t, func() bool {
		return condition(e.Status("late/web").Conditions, lifecycle.CondReady) == lifecycle.ConditionTrue &&
			condition(e.Status(ref).Conditions, lifecycle.CondReady) == lifecycle.ConditionTrue
	}, 2*time.Minute, time.Second, "and both instances are Ready")
	t.Logf("cluster back to both instances Ready, no deploy: %s", time.Since(back).Round(time.Millisecond))
	st = e.Status(ref)
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, map[string]string{"edge": "Applied", "in-cluster": "Applied"}, rsyncByCluster(st))
	require.Eventually(t, func() bool { return argoApp(t, stack, "wide-web-edge").Metadata.Labels[argocd.LabelBehind] == "" },
		time.Minute, time.Second, "caught up: no longer behind")

	// EMCO's filters: --cluster and --app pick the resources, and the counts are theirs.
	text := e.MustCLI(0, "status", ref, "--detail", "all").Stdout
	require.Contains(t, text, "app web:\n  cluster edge:\n", "grouped by app, then cluster")
	require.Contains(t, text, "\n  cluster in-cluster:\n")
	edgeOnly := statusJSON(t, e, ref, "--detail", "all", "--cluster", "edge")
	require.Equal(t, map[string]string{"edge": "Applied"}, rsyncByCluster(edgeOnly))
	require.Equal(t, map[string]int{"Applied": 1}, edgeOnly.RsyncStatus)
	require.Equal(t, map[string]string{"edge": "Applied", "in-cluster": "Applied"},
		rsyncByCluster(statusJSON(t, e, ref, "--detail", "all", "--app", "web")))
	none := statusJSON(t, e, ref, "--detail", "all", "--app", "api")
	require.Empty(t, none.Resources, "no app api on this instance")
	require.Empty(t, none.RsyncStatus)

	// Out of the placement: edge is drained (told the cluster), then its Application and namespace go.
	require.Empty(t, drainsOf(drains, "edge"), "no drain while the cluster stays placed")
	mark := time.Now()
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: spread\nplacement:\n  clusters: [in-cluster]\nparameters:\n  greeting: hello\n  replicas: 2\n"), "--wait")
	drained := drainsOf(drains, "edge")
	require.Len(t, drained, 1, "drained once, before its app went")
	require.Equal(t, "deleted", drained[0]["instance"])
	require.Equal(t, "Deployed", drained[0]["state"])
	require.Equal(t, http.StatusNotFound, get(t, stack, appPath("wide-web-edge")), "no Application left behind")
	require.Equal(t, http.StatusOK, get(t, stack, appPath("wide-web-in-cluster")))
	require.Eventually(t, func() bool { return get(t, onEdge, "/api/v1/namespaces/"+ns) == http.StatusNotFound }, time.Minute, time.Second)
	require.Equal(t, "2", configMap(t, stack, ns)["replicas"])
	t.Logf("un-placed edge (deploy, drain, removal): %s", time.Since(mark).Round(time.Millisecond))
	mark = time.Now()

	// A destroy with edge down removes late/web from in-cluster, fails naming edge, and records
	// what it left there as that cluster's leftover.
	require.NoError(t, edge.StopAPIServer())
	e.MustCLI(1, "destroy", "late/web", "--wait")
	late = e.Status("late/web")
	require.Equal(t, lifecycle.DestroyFailed, late.State)
	require.Equal(t, contract.RemoveApp, late.Failure.Step)
	require.Contains(t, late.Failure.Error, "cluster edge: application late-web-edge left")
	var left []string
	for _, l := range late.Failure.Leftovers {
		if l.Kind == "app" {
			left = append(left, l.ID)
		}
	}
	require.Equal(t, []string{"edge/late-web-edge"}, left, "one leftover, of the cluster that is down")
	require.Equal(t, http.StatusNotFound, get(t, stack, appPath("late-web-in-cluster")), "the other cluster's app went")
	require.Eventually(t, func() bool { return get(t, stack, "/api/v1/namespaces/late-web") == http.StatusNotFound }, time.Minute, time.Second)
	require.Equal(t, http.StatusOK, get(t, stack, appPath("late-web-edge")), "what it could not remove stays, on record")
	t.Logf("destroy with edge down: %s", time.Since(mark).Round(time.Millisecond))
	// (retry removes the rest once edge answers: ArgoCD's reconnect makes that a minute, left out here)
	require.NoError(t, edge.StartAPIServer(context.Background()))

	e.MustCLI(0, "destroy", ref, "--wait")
	for _, app := range []string{"wide-web-edge", "wide-web-in-cluster"} {
		require.Equal(t, http.StatusNotFound, get(t, stack, appPath(app)))
	}
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns))
	require.Equal(t, http.StatusNotFound, get(t, onEdge, "/api/v1/namespaces/"+ns))
}

// configMapValue is key of the app's ConfigMap in ns, "" while there is none (or the cluster is down).
func configMapValue(s *cluster.Stack, ns, key string) string {
	status, body, err := s.Stack.Get(context.Background(), "/api/v1/namespaces/"+ns+"/configmaps/app")
	if err != nil || status != http.StatusOK {
		return ""
	}
	var cm struct{ Data map[string]string }
	if json.Unmarshal(body, &cm) != nil {
		return ""
	}
	return cm.Data[key]
}

// drainsOf are the next states the drain hook was told for a cluster leaving the placement.
func drainsOf(h *hookCalls, cluster string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, b := range h.bodies {
		next, _ := b["next"].(map[string]any)
		if cs, _ := next["clusters"].([]any); len(cs) == 1 && cs[0] == cluster {
			out = append(out, next)
		}
	}
	return out
}

// statusJSON is the instance's status as `slipway status -o json` gives it with these flags.
func statusJSON(t *testing.T, e *testsuite.Env, ref string, flags ...string) contract.Status {
	t.Helper()
	var st contract.Status
	out := e.MustCLI(0, append([]string{"status", ref, "-o", "json"}, flags...)...).Stdout
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	return st
}

// rsyncByCluster is each cluster's resources' rsync status (one resource per cluster here).
func rsyncByCluster(st contract.Status) map[string]string {
	out := map[string]string{}
	for _, app := range st.Resources {
		for _, c := range app.Clusters {
			for _, r := range c.Resources {
				out[c.Name] = r.RsyncStatus
			}
		}
	}
	return out
}
