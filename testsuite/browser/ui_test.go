package browser

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// listReload is how often a workflow list is reloaded while a test waits for a row: the UI renders
// its list a while after the page loads, and on a loaded CI machine a reload every 2s kept the page
// blank for the whole wait.
const listReload = 5 * time.Second

// What an undecoded payload looks like in the UI: its encoding, as text or in base64.
var ciphertextMarkers = []string{"binary/encrypted", "YmluYXJ5L2VuY3J5cHRlZA=="}

// The operator's console, in a real browser on the real stack: the Temporal UI that
// the embedded default starts lists a deployed instance by its search attributes,
// shows its pipeline's input decoded through the codec endpoint the env serves (no
// pasting), and shows the instance not Ready once its ArgoCD Application is deleted
// behind slipway's back.
func TestUIDecodesPayloadsAndListsInstancesByState(t *testing.T) {
	chromiumPath := chromium(t)
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		// Its own dev server with a UI on a free port: the package's shared server is headless.
		o.Address, o.Headless, o.UIPort = "", false, 0
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
		o.ObserveInterval = 2 * time.Second
	})
	require.NotNil(t, e.Server, "the env starts its own dev server")
	require.NotEmpty(t, e.Server.UIURL)
	require.NotEmpty(t, e.CodecURL, "a started UI gets a codec endpoint")
	t.Logf("UI %s, codec endpoint %s (CORS for %s)", e.Server.UIURL, e.CodecURL, strings.Join(e.CodecOrigins(), ", "))

	const tenant, name = "acme", "web"
	ref := tenant + "/" + name
	e.MustCLI(0, "create", ref, "-f", instanceFile(t), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	st := e.Status(ref)
	require.NotNil(t, st.Operation)
	require.Equal(t, "deploy", string(st.Operation.Kind))

	p := openPage(t, chromiumPath, e.Server.UIURL)
	instanceID := "instance/" + ref

	// 1. The workflow list, filtered by a search attribute, shows the instance.
	// Two minutes: the UI's first load on a loaded CI machine (CI saw the page still empty after one).
	p.waitFor(listPath(`InstanceState="Deployed"`), listReload, 2*time.Minute,
		"instance "+instanceID+" in the list of Deployed instances",
		func(text string) bool { return strings.Contains(text, instanceID) })
	p.screenshot("1-list-deployed")

	// 2. The deploy pipeline's history shows its input decoded, and no payload left encrypted.
	text := p.waitFor(historyPath(t, e, st.Operation.Pipeline), 0, time.Minute,
		"the deploy pipeline's input, decoded", decoded(tenant))
	require.Regexp(t, `"operation":\s*"deploy"`, text, "the rest of the decoded input")
	shot := p.screenshot("2-pipeline-input-decoded")
	if os.Getenv("SLIPWAY_UPDATE_SCREENSHOT") == "1" && shot != "" {
		png, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("../../docs", 0o755))
		require.NoError(t, os.WriteFile("../../docs/ui-decoded.png", png, 0o644))
		t.Logf("updated docs/ui-decoded.png")
	}

	// 3. The Application deleted behind slipway's back: the observer marks the instance,
	// Ready after its deploy, not Ready, and the list filtered by InstanceReady shows it.
	// Two minutes, as above: a loaded CI machine rendered the row only just after one.
	p.waitFor(listPath(`InstanceReady="True"`), listReload, 2*time.Minute,
		"instance "+instanceID+" in the list of Ready instances",
		func(text string) bool { return strings.Contains(text, instanceID) })
	app := tenant + "-" + name
	if st.Names != nil && st.Names.Application != "" {
		app = st.Names.Application
	}
	status, body := stack.Argo(t, http.MethodDelete, "/api/v1/applications/"+app+"?cascade=false", nil)
	require.Equal(t, http.StatusOK, status, "delete Application %s: %s", app, body)
	p.waitFor(listPath(`InstanceReady="False"`), listReload, 2*time.Minute,
		"instance "+instanceID+" in the list of instances not Ready",
		func(text string) bool { return strings.Contains(text, instanceID) })
	p.screenshot("3-list-not-ready")
}

// instanceFile writes the example stack's instance file.
func instanceFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "instance.yaml")
	require.NoError(t, os.WriteFile(file, []byte("stack: example\nparameters:\n  greeting: hello\n"), 0o644))
	return file
}

// historyPath is the UI's page of a workflow's history (its latest run).
func historyPath(t *testing.T, e *testsuite.Env, workflowID string) string {
	t.Helper()
	require.NotEmpty(t, workflowID, "status names the operation's pipeline workflow")
	desc, err := e.Client.Temporal.DescribeWorkflowExecution(t.Context(), workflowID, "")
	require.NoError(t, err)
	runID := desc.WorkflowExecutionInfo.Execution.RunId
	return "/namespaces/default/workflows/" + url.PathEscape(workflowID) + "/" + runID + "/history"
}

// decoded accepts a page that shows a pipeline input's tenant as JSON text and no
// payload left encrypted.
func decoded(tenant string) func(text string) bool {
	tenantField := regexp.MustCompile(`"tenant":\s*"` + regexp.QuoteMeta(tenant) + `"`)
	return func(text string) bool {
		if !tenantField.MatchString(text) {
			return false
		}
		for _, m := range ciphertextMarkers {
			if strings.Contains(text, m) {
				return false
			}
		}
		return true
	}
}

// listPath is the UI's workflow list of the default namespace filtered by a visibility query.
func listPath(query string) string {
	return "/namespaces/default/workflows?query=" + url.QueryEscape(query)
}

// A server slipway did not start has a UI slipway cannot configure: the env still serves
// the codec endpoint (CodecListen, as `slipway dev` does), and the UI decodes once the
// endpoint is pasted where `slipway dev` says: the Codec Server button, then the
// Codec Server browser endpoint, then Apply.
func TestUIDecodesThroughThePastedEndpointOfAReusedServer(t *testing.T) {
	chromiumPath := chromium(t)
	srv, err := devenv.StartServer(t.Context(), devenv.ServerOptions{SearchAttributes: contract.SearchAttributeTypes})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Address, o.UIPort, o.CodecListen = srv.Address, srv.UIPort, "127.0.0.1:0"
		o.Deployer = "none"
	})
	require.Nil(t, e.Server, "the server is reused")
	require.NotEmpty(t, e.CodecURL)
	require.ElementsMatch(t, devenv.UIOrigins(srv.UIPort), e.CodecOrigins())

	ref := "acme/web"
	e.MustCLI(0, "create", ref, "-f", instanceFile(t), "--wait")
	st := e.Status(ref)
	require.NotNil(t, st.Operation)
	historyPath := historyPath(t, e, st.Operation.Pipeline)

	p := openPage(t, chromiumPath, srv.UIURL)
	p.waitFor(historyPath, 0, time.Minute, "the provision pipeline's input, still encrypted",
		func(text string) bool { return strings.Contains(text, ciphertextMarkers[1]) })
	p.screenshot("1-input-encrypted")

	p.pasteCodecEndpoint(e.CodecURL)
	p.waitFor(historyPath, 0, time.Minute, "the provision pipeline's input, decoded", decoded("acme"))
	p.screenshot("2-input-decoded-after-paste")
}
