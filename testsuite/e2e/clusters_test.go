package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// A stack places its instances on two clusters of one ArgoCD, one named and one selected by
// its labels: deploy syncs an Application on each (two real apiservers, each its own etcd).
// With the second apiserver down a deploy still succeeds on the first, reports the second's
// resources Retrying and leaves the instance not Ready; with it back the next deploy makes it
// Ready; an instance first deployed while it is down is not Ready until a deploy reaches it.
// Destroy removes the app and namespace from both. A selector that matches no cluster
// is refused at create with exit 2 naming the field.
func TestSeveralClustersDeployOneDownAndDestroy(t *testing.T) {
	stack := cluster.Start(t)
	edge := stack.AddCluster(t, "edge", map[string]string{"tier": "edge"})
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	pushPlacedStack(t, e, "spread", "placement:\n  clusters: [in-cluster]\n  selector:\n    matchLabels: {tier: edge}\n")
	pushPlacedStack(t, e, "nowhere", "placement:\n  selector:\n    matchLabels: {tier: moon}\n")
	pushPlacedStack(t, e, "ghostly", "placement:\n  clusters: [in-cluster, mars]\n")

	for _, tc := range []struct{ stack, field, want string }{
		{"nowhere", "schema.placement.selector", "matchLabels tier=moon matches no cluster in ArgoCD (it has edge, in-cluster)"},
		{"ghostly", "schema.placement.clusters", `ArgoCD has no cluster "mars"`},
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

	require.NoError(t, edge.StartAPIServer(context.Background()))
	e.MustCLI(0, "deploy", "late/web", "--wait")
	require.Equal(t, "1", configMap(t, &cluster.Stack{Stack: edge.Stack}, "late-web")["replicas"])
	require.Equal(t, lifecycle.ConditionTrue, condition(e.Status("late/web").Conditions, lifecycle.CondReady))
	e.MustCLI(0, "deploy", ref, "--wait")
	require.Equal(t, "2", configMap(t, &cluster.Stack{Stack: edge.Stack}, ns)["replicas"], "the second caught up")
	st = e.Status(ref)
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady))
	require.Equal(t, map[string]string{"edge": "Applied", "in-cluster": "Applied"}, rsyncByCluster(st))

	// EMCO's filters: --cluster and --app pick the resources, and the counts are theirs.
	text := e.MustCLI(0, "status", ref, "--detail", "all").Stdout
	require.Contains(t, text, "app web:\n  cluster edge:\n", "grouped by app, then cluster")
	require.Contains(t, text, "\n  cluster in-cluster:\n")
	onEdge := statusJSON(t, e, ref, "--detail", "all", "--cluster", "edge")
	require.Equal(t, map[string]string{"edge": "Applied"}, rsyncByCluster(onEdge))
	require.Equal(t, map[string]int{"Applied": 1}, onEdge.RsyncStatus)
	require.Equal(t, map[string]string{"edge": "Applied", "in-cluster": "Applied"},
		rsyncByCluster(statusJSON(t, e, ref, "--detail", "all", "--app", "web")))
	none := statusJSON(t, e, ref, "--detail", "all", "--app", "api")
	require.Empty(t, none.Resources, "no app api on this instance")
	require.Empty(t, none.RsyncStatus)

	e.MustCLI(0, "destroy", ref, "--wait")
	for _, app := range []string{"wide-web-edge", "wide-web-in-cluster"} {
		require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/"+argostack.ArgoNamespace+"/applications/"+app))
	}
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns))
	require.Equal(t, http.StatusNotFound, get(t, &cluster.Stack{Stack: edge.Stack}, "/api/v1/namespaces/"+ns))
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
