package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/testsuite"
)

// A slipway-worker started against a dev server that knows none of slipway's search attributes
// registers them with their declared types, and a create then works: no extra step. A namespace
// holding one with the wrong type makes the worker refuse to start, naming it.
func TestWorkerOnAPlainDevServerRegistersItsSearchAttributes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv, err := devenv.StartServer(ctx, devenv.ServerOptions{Headless: true, LogFile: filepath.Join(dir, "temporal.log")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: srv.Address})
	require.NoError(t, err)
	defer tc.Close()
	require.Empty(t, slipwayAttributes(t, tc, "default"), "a plain dev server starts without them")

	repo := filepath.Join(dir, "gitops")
	_, err = devenv.SeedGitOps(repo)
	require.NoError(t, err)
	bin := filepath.Join(dir, "slipway-worker")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker").CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	env := append(os.Environ(), "TEMPORAL_ADDRESS="+srv.Address, "SLIPWAY_TASK_QUEUE=plain",
		"SLIPWAY_GITOPS_REPO="+repo, "SLIPWAY_STATE_DIR="+filepath.Join(dir, "state"), "SLIPWAY_DEPLOYER=none")

	// The wrong type first, in a namespace of its own: the worker must not start on it.
	_, err = tc.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "wrongtype", WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	require.NoError(t, err)
	waitFor(t, "namespace wrongtype", func() bool {
		_, err := tc.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "wrongtype",
			SearchAttributes: map[string]enumspb.IndexedValueType{"InstanceGated": enumspb.INDEXED_VALUE_TYPE_KEYWORD}})
		return err == nil
	})
	refused := exec.Command(bin)
	refused.Env = append(slices.Clone(env), "TEMPORAL_NAMESPACE=wrongtype")
	var stderr bytes.Buffer
	refused.Stderr = &stderr
	err = runWithin(refused, time.Minute)
	require.Error(t, err, "the worker refuses to start")
	require.Contains(t, stderr.String(), "search attribute InstanceGated in namespace wrongtype is registered as Keyword, slipway declares Bool")

	cmd := exec.Command(bin)
	cmd.Env = env
	log := filepath.Join(dir, "worker.log")
	p, err := proc.Start("worker", cmd, log)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	waitFor(t, "the worker's registration", func() bool {
		return len(slipwayAttributes(t, tc, "default")) == len(contract.SearchAttributes)
	})
	require.Equal(t, contract.SearchAttributeTypes, slipwayAttributes(t, tc, "default"), "registered with the declared types")

	t.Setenv("TEMPORAL_ADDRESS", srv.Address)
	instance := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	res := plainCLI("--task-queue", "plain", "--actor", "e2e", "create", "acme/web", "-f", instance, "--wait")
	require.Equal(t, 0, res.Code, "create: %s%s\nworker log:\n%s", res.Stdout, res.Stderr, proc.LogTail(log))
	require.Contains(t, res.Stdout, "acme/web is ConfigurationCreated")
	waitFor(t, "the list by search attributes", func() bool {
		res = plainCLI("--task-queue", "plain", "list", "--tenant", "acme", "--state", "ConfigurationCreated")
		return res.Code == 0 && strings.Contains(res.Stdout, "acme/web")
	})
	logged, err := os.ReadFile(log)
	require.NoError(t, err)
	require.NotContains(t, string(logged), "not registered")
}

// slipwayAttributes is name -> type of the namespace's custom attributes that slipway declares.
func slipwayAttributes(t *testing.T, tc sdkclient.Client, ns string) map[string]string {
	t.Helper()
	resp, err := tc.OperatorService().ListSearchAttributes(context.Background(), &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	require.NoError(t, err)
	got := map[string]string{}
	for name, typ := range resp.GetCustomAttributes() {
		if _, ok := contract.SearchAttributeTypes[name]; ok {
			got[name] = typ.String()
		}
	}
	return got
}

// plainCLI runs `slipway ARGS...` in-process against TEMPORAL_ADDRESS.
func plainCLI(args ...string) testsuite.Result {
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return testsuite.Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// runWithin runs cmd to its end, killing it after d.
func runWithin(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(d, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	return cmd.Wait()
}
