package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// Two control planes that manage each other (EDP's pair), on the real stack (Gitea, git,
// terraform, ArgoCD): edp runs on platform/edp and deploys platform/observability; observability
// runs on platform/observability and deploys platform/edp, reading the GitOps repo through a
// mirror when the forge is down. Each is updated through the other; a self-update and an unknown
// pool are refused with exit 2; with the edp pool and the forge both down, observability still
// redeploys edp's instance from the mirror.
func TestControlPlanesManageEachOther(t *testing.T) {
	ctx := context.Background()
	stack := cluster.Start(t)
	// The platform lets the stack's instances run on these pools (schema.controlPlanes).
	schema, err := examples.StackFiles("example")
	require.NoError(t, err)
	gs, push := giteaGitOps(t, map[string][]byte{"stacks/example/schema.yaml": append(schema["schema.yaml"],
		"controlPlanes: [edp, observability, nope]\n"...)})
	// The forge's push mirror, as EDP keeps one on observability: a bare mirror clone kept in step.
	mirrorDir := filepath.Join(t.TempDir(), "gitops-mirror.git")
	testsuite.Git(t, filepath.Dir(mirrorDir), "clone", "--quiet", "--mirror", push, mirrorDir)
	syncMirror := func() { testsuite.Git(t, mirrorDir, "remote", "update", "--prune") }

	forgeCfg := workerapp.Forge{Kind: "gitea", URL: gs.URL, Repo: gs.AdminUser + "/gitops", Token: gs.Token}
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.NoWorker, o.Forge = true, forgeCfg
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	startPool := func(name, self, mirror string) (stop func()) {
		cfg := workerapp.Config{TaskQueue: e.TaskQueue, StateDir: t.TempDir(), Deployer: "argocd", ArgoURL: stack.ArgoURL,
			ArgoToken: stack.ArgoToken, Kubeconfig: stack.Kubeconfig, Forge: forgeCfg, ControlPlane: name, Self: self, ForgeMirror: mirror}
		acts, err := workerapp.NewActivities(cfg)
		require.NoError(t, err)
		workerapp.Attach(acts, e.Client.Temporal, e.TaskQueue)
		ws, err := workerapp.PoolWorkers(e.Client.Temporal, e.TaskQueue, cfg, acts)
		require.NoError(t, err)
		for _, w := range ws {
			require.NoError(t, w.Start())
		}
		require.NoError(t, workerapp.RegisterPool(ctx, e.Client.Temporal, e.TaskQueue, cfg))
		stopped := false
		stop = func() {
			if !stopped {
				stopped = true
				for _, w := range ws {
					w.Stop()
				}
			}
		}
		t.Cleanup(stop)
		return stop
	}
	stopEDP := startPool("edp", "platform/edp", "")
	startPool("observability", "platform/observability", mirrorDir)
	require.Eventually(t, func() bool {
		pools, err := e.Client.ControlPlanes(ctx)
		return err == nil && len(pools) == 2
	}, 30*time.Second, 100*time.Millisecond, "both pools registered")

	instance := func(greeting, pool string) string {
		return writeFile(t, "stack: example\nparameters:\n  greeting: "+greeting+"\ncontrolPlane: "+pool+"\n")
	}
	ranOn := func(ref string) string {
		st := e.Status(ref)
		d, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, st.Operation.Pipeline, "")
		require.NoError(t, err)
		return d.GetExecutionConfig().GetTaskQueue().GetName()
	}
	e.MustCLI(0, "create", "platform/observability", "-f", instance("obs-1", "edp"), "--wait")
	e.MustCLI(0, "deploy", "platform/observability", "--wait")
	e.MustCLI(0, "create", "platform/edp", "-f", instance("edp-1", "observability"), "--wait")
	e.MustCLI(0, "deploy", "platform/edp", "--wait")
	require.Equal(t, controlplane.TaskQueue(e.TaskQueue, "edp"), ranOn("platform/observability"))
	require.Equal(t, controlplane.TaskQueue(e.TaskQueue, "observability"), ranOn("platform/edp"))
	require.Equal(t, "observability", e.Status("platform/edp").ControlPlane)
	pools := e.MustCLI(0, "control-planes").Stdout
	require.Regexp(t, `edp\s+platform/edp\s+`+e.TaskQueue+`@edp\s+-`, pools)
	require.Regexp(t, `observability\s+platform/observability\s+`+e.TaskQueue+`@observability\s+/`, pools)

	// Each is updated through the other.
	e.MustCLI(0, "deploy", "platform/edp", "-f", instance("edp-2", "observability"), "--wait")
	e.MustCLI(0, "deploy", "platform/observability", "-f", instance("obs-2", "edp"), "--wait")
	edpNS, obsNS := e.Status("platform/edp").Names.Namespace, e.Status("platform/observability").Names.Namespace
	require.Equal(t, "edp-2", configMap(t, stack, edpNS)["greeting"])
	require.Equal(t, "obs-2", configMap(t, stack, obsNS)["greeting"])
	require.Equal(t, controlplane.TaskQueue(e.TaskQueue, "observability"), ranOn("platform/edp"))

	// A self-update and an unknown pool are refused before anything changes.
	ops := len(e.Status("platform/edp").History)
	self := e.CLI("deploy", "platform/edp", "-f", instance("edp-3", "edp"))
	require.Equal(t, 2, self.Code, self.Stdout+self.Stderr)
	require.Contains(t, self.Stderr, "platform/edp is the instance the edp pool runs on: a deploy would take that pool down mid-pipeline; run it from another pool: set controlPlane: observability")
	unknown := e.CLI("deploy", "platform/edp", "-f", instance("edp-3", "nope"))
	require.Equal(t, 2, unknown.Code, unknown.Stdout+unknown.Stderr)
	require.Contains(t, unknown.Stderr, `unknown control plane "nope"`)
	require.Contains(t, unknown.Stderr, "known: edp, observability")
	rogue := e.CLI("deploy", "platform/edp", "-f", instance("edp-3", "rogue"))
	require.Equal(t, 2, rogue.Code, rogue.Stdout+rogue.Stderr)
	require.Contains(t, rogue.Stderr, `controlPlane: "rogue" is not a worker pool the stack allows (schema.controlPlanes: edp, observability, nope)`)
	st := e.Status("platform/edp")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Len(t, st.History, ops, "no operation was started")

	// The edp pool and the forge go down; observability redeploys edp from its mirror.
	syncMirror()
	stopEDP()
	require.NoError(t, gs.Server.Stop())
	_, err = http.Get(gs.URL + "/api/v1/version")
	require.Error(t, err, "the forge is down")
	appName := e.Status("platform/edp").Names.Application
	start := time.Now()
	e.MustCLI(0, "deploy", "platform/edp", "--wait")
	t.Logf("redeploy of edp through observability from the mirror, forge down: %s", time.Since(start).Round(time.Millisecond))
	st = e.Status("platform/edp")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Contains(t, step(t, st, contract.ResolveRevision).Detail, "read from the mirror file://"+mirrorDir)
	require.Equal(t, controlplane.TaskQueue(e.TaskQueue, "observability"), ranOn("platform/edp"))
	code, body := stack.Argo(t, http.MethodGet, "/api/v1/applications/"+appName, nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var a struct {
		Spec struct {
			Source struct {
				RepoURL string `json:"repoURL"`
			} `json:"source"`
		} `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(body, &a))
	require.Equal(t, "file://"+mirrorDir, a.Spec.Source.RepoURL, "ArgoCD deploys from the mirror while the forge is down")
	require.Equal(t, "edp-2", configMap(t, stack, edpNS)["greeting"])
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "platform", Name: "edp"}), "controlplanes")
}
