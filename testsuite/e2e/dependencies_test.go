package e2e

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// relaySchema is a stack whose instances depend on another of the same stack: two of them can
// name each other, which is the cycle slipway refuses.
const relaySchema = `parameters:
  - {name: upstream, type: string, required: true}
dependencies:
  - {name: upstream, stack: relay, instance: upstream}
`

// evilSubnet is an output value that tries YAML and HCL injection into its consumer's files.
const evilSubnet = "10.9.0.0/24\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: pwned-by-network\n${path.cwd}"

// consumerSchema consumes OUTPUT of a network instance as its parameter value.
func consumerSchema(output string) string {
	return `parameters:
  - {name: network, type: string, required: true}
  - {name: value, type: string, default: ""}
dependencies:
  - {name: network, stack: network, instance: network, outputs: {` + output + `: value}}
`
}

// Instances that depend on each other (Datum's network and subnet), on the real stack (git,
// terraform, ArgoCD, kube-apiserver): the app waits at the gate its dependency adds until the
// network is Ready, takes its subnet output as a parameter (in git and in the cluster), is
// deployed again when the subnet changes; the network cannot be deprovisioned or destroyed
// while the app uses it; a network that fails is reported on its dependents' Scheduled at once;
// a cycle, a missing output and a sensitive one are refused with exit 2 naming the field.
func TestInstanceDependencies(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	files := exampleStacks(t, "network", "app")
	files["stacks/relay/schema.yaml"] = []byte(relaySchema)
	files["stacks/relay/terraform/main.tf.tmpl"] = []byte("terraform {}\n")
	files["stacks/missing/schema.yaml"] = []byte(consumerSchema("nosuch"))
	files["stacks/missing/terraform/main.tf.tmpl"] = []byte("terraform {}\n")
	files["stacks/leaky/schema.yaml"] = []byte(consumerSchema("token"))
	files["stacks/leaky/terraform/main.tf.tmpl"] = []byte("terraform {}\n")
	// evilnet issues a "subnet" that tries to add a ClusterRole to the manifest of the app that
	// takes it, and an interpolation into its terraform; evilapp is the app stack on it.
	files["stacks/evilnet/schema.yaml"] = files["stacks/network/schema.yaml"]
	files["stacks/evilnet/manifests/network.yaml.tmpl"] = files["stacks/network/manifests/network.yaml.tmpl"]
	files["stacks/evilnet/terraform/main.tf.tmpl"] = []byte("terraform {}\noutput \"subnet\" {\n  value = " + strconv.Quote(strings.ReplaceAll(evilSubnet, "${", "$${")) + "\n}\n")
	files["stacks/planapp/schema.yaml"] = []byte(strings.Replace(string(files["stacks/app/schema.yaml"]), "onChange: deploy", "onChange: plan", 1))
	files["stacks/planapp/terraform/main.tf.tmpl"] = files["stacks/app/terraform/main.tf.tmpl"]
	files["stacks/planapp/manifests/app.yaml.tmpl"] = files["stacks/app/manifests/app.yaml.tmpl"]
	files["stacks/evilapp/schema.yaml"] = []byte(strings.Replace(string(files["stacks/app/schema.yaml"]), "stack: network", "stack: evilnet", 1))
	files["stacks/evilapp/terraform/main.tf.tmpl"] = files["stacks/app/terraform/main.tf.tmpl"]
	files["stacks/evilapp/manifests/app.yaml.tmpl"] = files["stacks/app/manifests/app.yaml.tmpl"]
	// fragileapp is the app stack with a parameter that makes its plan fail.
	files["stacks/fragileapp/schema.yaml"] = []byte(strings.Replace(string(files["stacks/app/schema.yaml"]), "parameters:\n",
		"parameters:\n  - {name: fail, type: bool, default: false}\n", 1))
	files["stacks/fragileapp/terraform/main.tf.tmpl"] = []byte(string(files["stacks/app/terraform/main.tf.tmpl"]) +
		"\nresource \"terraform_data\" \"fragile\" {\n  lifecycle {\n    precondition {\n      condition     = !{{ .Params.fail }}\n      error_message = \"the app was asked to fail\"\n    }\n  }\n}\n")
	files["stacks/fragileapp/manifests/app.yaml.tmpl"] = files["stacks/app/manifests/app.yaml.tmpl"]
	testsuite.PushFiles(t, e.GitOpsRepo, "add the network and app stacks", files)

	// The app comes first: its dependency adds the gate instance:deps/net, and it waits there.
	e.MustCLI(0, "create", "deps/app", "-f", writeFile(t, "stack: app\nparameters:\n  network: net\n"))
	require.Eventually(t, func() bool { return e.Status("deps/app").Waiting != nil }, 30*time.Second, 50*time.Millisecond)
	st := e.Status("deps/app")
	require.Equal(t, lifecycle.NoConfiguration, st.State)
	require.Equal(t, []string{"deps/net"}, st.Dependencies)
	sched := conditionOf(st.Conditions, contract.CondScheduled)
	require.Equal(t, lifecycle.ConditionFalse, sched.Status)
	require.Contains(t, sched.Message, "instance:deps/net")

	// The network deploys and becomes Ready: the app provisions with its subnet as a parameter.
	e.MustCLI(0, "create", "deps/net", "-f", writeFile(t, "stack: network\nparameters:\n  block: 1\n"), "--wait")
	e.MustCLI(0, "deploy", "deps/net", "--wait")
	require.Equal(t, "10.0.1.0/24", e.Status("deps/net").Outputs["subnet"])
	require.Eventually(t, func() bool { return e.Status("deps/app").State == lifecycle.ConfigurationCreated }, time.Minute, 100*time.Millisecond)
	st = e.Status("deps/app")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", st.Revision+":instances/deps/app/instance.yaml"), "10.0.1.0/24")
	e.MustCLI(0, "deploy", "deps/app", "--wait")
	require.Equal(t, "10.0.1.0/24", configMap(t, stack, "deps-app")["subnet"])
	require.Equal(t, "10.0.1.0/24", e.Status("deps/app").Outputs["subnet"], "terraform got it too")

	// A second consumer whose stack says onChange: plan (the default).
	e.MustCLI(0, "create", "deps/planner", "-f", writeFile(t, "stack: planapp\nparameters:\n  network: net\n"), "--wait")

	// The network's subnet changes: the app (onChange: deploy) is deployed again with the new one.
	e.MustCLI(0, "deploy", "deps/net", "-f", writeFile(t, "stack: network\nparameters:\n  block: 2\n"), "--wait")
	changed := time.Now()
	require.Eventually(t, func() bool {
		st := e.Status("deps/app")
		return st.State == lifecycle.Deployed && st.Outputs["subnet"] == "10.0.2.0/24"
	}, 2*time.Minute, 200*time.Millisecond)
	t.Logf("network's deploy ended to the app deployed with the new subnet: %s", time.Since(changed).Round(time.Millisecond))
	st = e.Status("deps/app")
	require.Contains(t, st.Operation.Note, "outputs of deps/net changed")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", st.Deployed+":instances/deps/app/manifests/app.yaml"), `subnet: "10.0.2.0/24"`)
	require.Eventually(t, func() bool { return configMap(t, stack, "deps-app")["subnet"] == "10.0.2.0/24" }, time.Minute, 200*time.Millisecond)

	// The planner is planned, not deployed: its plan's config diff shows the new subnet.
	require.Eventually(t, func() bool {
		op := e.Status("deps/planner").Operation
		return op != nil && op.Kind == lifecycle.OpPlan && op.Result == contract.ResultSucceeded
	}, time.Minute, 200*time.Millisecond)
	st = e.Status("deps/planner")
	require.Equal(t, lifecycle.ConfigurationCreated, st.State)
	require.Contains(t, st.Operation.Note, "outputs of deps/net changed")
	require.Contains(t, st.Operation.Diff, "10.0.2.0/24")

	// The network is in use: deprovision and destroy are refused, naming the app.
	for _, args := range [][]string{{"deprovision", "deps/net", "--yes"}, {"destroy", "deps/net"}} {
		out := e.MustCLI(2, args...)
		require.Contains(t, out.Stderr, "deps/app", args[0])
		require.Contains(t, out.Stderr, "deps/planner", args[0])
	}
	require.Equal(t, lifecycle.Deployed, e.Status("deps/net").State, "nothing changed")

	// A consumed output is tenant data: escaped as any parameter, the injections stay one string.
	e.MustCLI(0, "create", "deps/evilnet", "-f", writeFile(t, "stack: evilnet\n"), "--wait")
	e.MustCLI(0, "deploy", "deps/evilnet", "--wait")
	require.Equal(t, evilSubnet, e.Status("deps/evilnet").Outputs["subnet"])
	e.MustCLI(0, "create", "deps/victim", "-f", writeFile(t, "stack: evilapp\nparameters:\n  network: evilnet\n"), "--wait")
	e.MustCLI(0, "deploy", "deps/victim", "--wait")
	require.Equal(t, evilSubnet, e.Status("deps/victim").Outputs["subnet"], "terraform got the text, not the worker's path")
	require.Equal(t, evilSubnet, configMap(t, stack, "deps-victim")["subnet"])
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/rbac.authorization.k8s.io/v1/clusterroles/pwned-by-network"))

	// Bad input, exit 2 naming the field: a cycle, itself, an output the network lacks, a sensitive one.
	e.MustCLI(0, "create", "deps/r1", "-f", writeFile(t, "stack: relay\nparameters:\n  upstream: r2\n"))
	require.Eventually(t, func() bool { return len(e.Status("deps/r1").Dependencies) == 1 }, 30*time.Second, 50*time.Millisecond)
	out := e.MustCLI(2, "create", "deps/r2", "-f", writeFile(t, "stack: relay\nparameters:\n  upstream: r1\n"))
	require.Contains(t, out.Stderr, "parameters.upstream")
	require.Contains(t, out.Stderr, "a cycle of dependencies: deps/r2 -> deps/r1 -> deps/r2")
	out = e.MustCLI(2, "create", "deps/r3", "-f", writeFile(t, "stack: relay\nparameters:\n  upstream: r3\n"))
	require.Contains(t, out.Stderr, "names the instance itself")
	out = e.MustCLI(2, "create", "deps/m", "-f", writeFile(t, "stack: missing\nparameters:\n  network: net\n"))
	require.Contains(t, out.Stderr, "schema.dependencies[0].outputs.nosuch")
	require.Contains(t, out.Stderr, `has no output "nosuch"`)
	out = e.MustCLI(2, "create", "deps/l", "-f", writeFile(t, "stack: leaky\nparameters:\n  network: net\n"))
	require.Contains(t, out.Stderr, "schema.dependencies[0].outputs.token")
	require.Contains(t, out.Stderr, "is sensitive")
	out = e.MustCLI(2, "create", "deps/x", "-f", writeFile(t, "stack: app\nparameters:\n  network: other/net\n"))
	require.Contains(t, out.Stderr, "parameters.network")

	// A network that fails is reported on the Scheduled condition of the app waiting for it at
	// once (its gate has no timeout at all), and on one that starts waiting after it failed.
	e.MustCLI(0, "create", "deps/broken", "-f", writeFile(t, "stack: network\nparameters:\n  fail: true\n"), "--wait")
	e.MustCLI(0, "create", "deps/app2", "-f", writeFile(t, "stack: app\nparameters:\n  network: broken\n"))
	require.Eventually(t, func() bool { return e.Status("deps/app2").Waiting != nil }, 30*time.Second, 50*time.Millisecond)
	e.MustCLI(1, "deploy", "deps/broken", "--wait")
	failed := time.Now()
	failedOn := func(ref string) bool {
		c := conditionOf(e.Status(ref).Conditions, contract.CondScheduled)
		return c.Reason == contract.ReasonDependencyFailed && strings.Contains(c.Message, "deps/broken is DeploymentFailed")
	}
	require.Eventually(t, func() bool { return failedOn("deps/app2") }, 30*time.Second, 20*time.Millisecond)
	t.Logf("dependency failed to its dependent's Scheduled condition: %s", time.Since(failed).Round(time.Millisecond))
	require.Contains(t, conditionOf(e.Status("deps/app2").Conditions, contract.CondScheduled).Message, "asked to fail")
	e.MustCLI(0, "create", "deps/app3", "-f", writeFile(t, "stack: app\nparameters:\n  network: broken\n"))
	require.Eventually(t, func() bool { return failedOn("deps/app3") }, 30*time.Second, 100*time.Millisecond)

	// A deprovision of a network and the create of an app on it, sent at once: the network's
	// workflow decides both in turn, so never both go through.
	raceTeardownAndDependent(t, e, "net2", false)
	raceTeardownAndDependent(t, e, "net3", true) // the deprovision sent as the app's gate asks the network

	// A cascade that cannot be delivered (the dependent's deploy failed, so it refuses one) marks
	// the dependent DependencyStale, naming the network.
	e.MustCLI(0, "create", "deps/net4", "-f", writeFile(t, "stack: network\nparameters:\n  block: 4\n"), "--wait")
	e.MustCLI(0, "deploy", "deps/net4", "--wait")
	e.MustCLI(0, "create", "deps/fragile", "-f", writeFile(t, "stack: fragileapp\nparameters:\n  network: net4\n  fail: true\n"), "--wait")
	e.MustCLI(1, "deploy", "deps/fragile", "--wait")
	e.MustCLI(0, "deploy", "deps/net4", "-f", writeFile(t, "stack: network\nparameters:\n  block: 5\n"), "--wait")
	require.Eventually(t, func() bool {
		return conditionOf(e.Status("deps/fragile").Conditions, contract.CondDependencyStale).Status == lifecycle.ConditionTrue
	}, time.Minute, 200*time.Millisecond)
	stale := conditionOf(e.Status("deps/fragile").Conditions, contract.CondDependencyStale)
	require.Contains(t, stale.Message, "outputs of deps/net4 changed")
	require.Contains(t, stale.Message, "DeploymentFailed")

	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "deps", Name: "app"}), "instance-dependencies")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "deps", Name: "broken"}), "instance-dependencies-failed")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "deps", Name: "net"}), "instance-dependencies-outputs")
}

// raceTeardownAndDependent deploys network deps/NET, then sends its deprovision and the create of
// an app on it at the same time (or, createFirst, the deprovision once the create is accepted):
// either the deprovision is refused naming the app, which then provisions, or it goes through and
// the app stays at its gate, told the network is torn down.
func raceTeardownAndDependent(t *testing.T, e *testsuite.Env, net string, createFirst bool) {
	t.Helper()
	e.MustCLI(0, "create", "deps/"+net, "-f", writeFile(t, "stack: network\n"), "--wait")
	e.MustCLI(0, "deploy", "deps/"+net, "--wait")
	app := "deps/on-" + net
	appFile := writeFile(t, "stack: app\nparameters:\n  network: "+net+"\n")
	var teardown, create testsuite.Result
	var wg sync.WaitGroup
	wg.Add(2)
	accepted := make(chan struct{})
	go func() {
		defer wg.Done()
		if createFirst {
			<-accepted
		}
		teardown = e.CLI("deprovision", "deps/"+net, "--yes", "--wait")
	}()
	go func() { defer wg.Done(); create = e.CLI("create", app, "-f", appFile); close(accepted) }()
	wg.Wait()
	require.Equal(t, 0, create.Code, "the create is accepted (it waits at its gate): %s", create.Stderr)
	if teardown.Code != 0 {
		require.Equal(t, 2, teardown.Code, teardown.Stderr)
		require.Contains(t, teardown.Stderr, app, "the refusal names the dependent")
		require.Eventually(t, func() bool { return e.Status(app).State == lifecycle.ConfigurationCreated }, time.Minute, 100*time.Millisecond)
		t.Logf("%s: the dependent won; the deprovision was refused: %s", net, strings.TrimSpace(teardown.Stderr))
		return
	}
	// The network is gone: the app never provisions; its gate says why.
	require.Eventually(t, func() bool {
		c := conditionOf(e.Status(app).Conditions, contract.CondScheduled)
		g := e.Status(app).Gates
		return strings.Contains(c.Message, "torn down") || (len(g) == 1 && strings.Contains(g[0].Note, "cannot be reached"))
	}, time.Minute, 100*time.Millisecond)
	time.Sleep(2 * time.Second)
	st := e.Status(app)
	require.Equal(t, lifecycle.NoConfiguration, st.State, "the app must not provision on a deprovisioned network")
	require.NotNil(t, st.Waiting)
	t.Logf("%s: the deprovision won; the dependent waits at its gate", net)
}

// exampleStacks are the files of examples/stacks/<name> as stacks/<name>/... in a GitOps repo.
func exampleStacks(t *testing.T, names ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range names {
		root := filepath.Join("../../examples/stacks", name)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files["stacks/"+name+"/"+filepath.ToSlash(rel)] = data
			return err
		})
		require.NoError(t, err)
	}
	return files
}
