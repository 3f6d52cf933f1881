package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// drainScript logs what it is told to log, fails when the instance's mode output says so, and
// otherwise drains dynamically: "call me again in 1s" twice, then done.
const drainScript = `#!/bin/sh
printf '%s|%s|%s\n' "$SLIPWAY_CALL" "$SLIPWAY_INSTANCE_STATE" "$SLIPWAY_INSTANCE_NEXT_STATE" >> LOGFILE
if [ "$SLIPWAY_OUTPUT_MODE" = fail ]; then echo "cannot drain: replica lag 40s" >&2; exit 3; fi
if [ "$SLIPWAY_CALL" -lt 3 ]; then echo "still draining (call $SLIPWAY_CALL)" >&2; echo -1; else echo 0; fi
`

// hookCalls records the post-deploy hook's POSTs.
type hookCalls struct {
	mu     sync.Mutex
	paths  []string
	bodies []map[string]any
}

func (h *hookCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	h.mu.Lock()
	h.paths = append(h.paths, r.Header.Get("X-Slipway-Hook")+" "+r.URL.RequestURI())
	h.bodies = append(h.bodies, m)
	h.mu.Unlock()
	fmt.Fprintln(w, "0")
}

func (h *hookCalls) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.paths)
}

// Hooks on the real stack (git, terraform, ArgoCD): the post-deploy http hook is told where the
// instance came from and went; the drain hook of an archive is told Deployed (app running, data
// available) -> Archived (app stopped, data available) and drains dynamically, asking twice to be
// called again; a failing drain fails the destroy with its output and a leftover and keeps the
// app; retry runs it again; resolve --skip-hook goes on, recorded; a hook without a deadline is
// refused before anything starts.
func TestHooksAreToldTheCurrentAndNextState(t *testing.T) {
	// The drain script logs to a file of this test's: unconfined, so the host sees it
	// (confinement_exec_test.go runs hooks in the sandbox).
	t.Setenv("SLIPWAY_HOOK_SANDBOX", "none")
	// The post-deploy hook's endpoint is this test's server on loopback, which the operator allows.
	t.Setenv("SLIPWAY_HOOK_ALLOW_CIDRS", "127.0.0.1")
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	calls := &hookCalls{}
	srv := httptest.NewServer(calls)
	t.Cleanup(srv.Close)
	logFile := filepath.Join(t.TempDir(), "drain.log")
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack with hooks", guardedStack("drained", fmt.Sprintf(`hooks:
  drain: {exec: hooks/drain.sh, deadline: 1m}
  post-deploy:
    http: "%s/ready/{{ .Tenant }}/{{ .Name }}?greeting={{ .Outputs.greeting }}"
    deadline: 30s
`, srv.URL), map[string]string{"hooks/drain.sh": strings.Replace(drainScript, "LOGFILE", logFile, 1)}))
	const ref = "hook/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: drained\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	require.Equal(t, 1, calls.count())
	require.Equal(t, "post-deploy /ready/hook/web?greeting=hello", calls.paths[0], "the URL is templated from the parameters and outputs")
	cur, next := calls.bodies[0]["current"].(map[string]any), calls.bodies[0]["next"].(map[string]any)
	require.Equal(t, "ConfigurationCreated", cur["state"])
	require.Equal(t, map[string]any{"state": "Deployed", "app": "running", "data": "available", "operation": "deploy",
		"reason": next["reason"], "deployment": "updated", "instance": "running", "disk": "attached"}, next)
	ns := e.Status(ref).Names.Namespace

	// Archive: the drain hook is told running/available -> stopped/available and asks twice.
	start := time.Now()
	e.MustCLI(0, "archive", ref, "--wait")
	t.Logf("archive with a dynamic drain (two 1s waits): %s; drain-hook step %s", time.Since(start).Round(time.Millisecond), stepTook(t, e.Status(ref), contract.DrainHook))
	lines := drainLog(t, logFile)
	require.Len(t, lines, 3, "called until it answered 0")
	for i, l := range lines {
		cur, next := l.cur, l.next
		require.Equal(t, fmt.Sprint(i+1), l.call)
		require.Equal(t, "Deployed", cur["state"])
		require.Equal(t, "running", cur["app"])
		require.Equal(t, "available", cur["data"])
		require.Equal(t, "Archived", next["state"])
		require.Equal(t, "stopped", next["app"])
		require.Equal(t, "available", next["data"])
		require.Equal(t, "archive", next["operation"])
	}
	drained := step(t, e.Status(ref), contract.DrainHook)
	require.Equal(t, "drain hook (exec): 3 call(s), answers -1, -1, 0, waited 2s", drained.Detail)
	require.Eventually(t, func() bool { return get(t, stack, "/api/v1/namespaces/"+ns) == http.StatusNotFound }, time.Minute, 200*time.Millisecond)

	// A failing drain fails the destroy, keeps the app, and records its output and a leftover.
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: drained\nparameters:\n  greeting: hello\n  mode: fail\n"), "--wait")
	require.Equal(t, 2, calls.count())
	out := e.MustCLI(1, "destroy", ref, "--wait")
	require.Contains(t, out.Stdout, "DestroyFailed")
	st := e.Status(ref)
	require.Equal(t, contract.DrainHook, st.Failure.Step)
	require.Len(t, st.Failure.Leftovers, 1)
	require.Equal(t, contract.LeftoverHook, st.Failure.Leftovers[0].Kind)
	require.Contains(t, st.Failure.Leftovers[0].Detail, "the instance was left Deployed (app running, data available)")
	require.Contains(t, step(t, st, contract.DrainHook).Output, "cannot drain: replica lag 40s", "the hook's output is in the step record")
	require.Equal(t, "hello", configMap(t, stack, ns)["greeting"], "the app is still there")
	e.MustCLI(1, "retry", ref, "--wait")
	require.Len(t, drainLog(t, logFile), 5, "retry ran the hook again")

	e.MustCLI(0, "resolve", ref, "--skip-hook", "--reason", "drained by hand")
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
	require.Len(t, drainLog(t, logFile), 5, "skipped, not run")
	st = e.Status(ref)
	last := st.Decisions[len(st.Decisions)-1]
	require.Equal(t, contract.DrainHook, last.SkippedHook)
	require.Equal(t, "drained by hand", last.Reason)
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "hook", Name: "web"}), "hooks")

	// A hook without a deadline is refused before anything starts, naming the field.
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack with an unbounded hook", guardedStack("unbounded",
		"hooks:\n  drain: {exec: hooks/drain.sh}\n", map[string]string{"hooks/drain.sh": "#!/bin/sh\necho 0\n"}))
	bad := e.CLI("create", "hook/bad", "-f", writeFile(t, "stack: unbounded\nparameters:\n  greeting: x\n"))
	require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
	require.Contains(t, bad.Stderr, "schema.hooks.drain.deadline")
}

// drainLog reads the drain script's log: call, current and next state per line.
type drainCall struct {
	call      string
	cur, next map[string]any
}

func drainLog(t *testing.T, path string) []drainCall {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []drainCall
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		require.Len(t, parts, 3, line)
		var cur, next map[string]any
		require.NoError(t, json.Unmarshal([]byte(parts[1]), &cur), line)
		require.NoError(t, json.Unmarshal([]byte(parts[2]), &next), line)
		out = append(out, drainCall{call: parts[0], cur: cur, next: next})
	}
	return out
}

func step(t *testing.T, st contract.Status, name string) contract.StepRecord {
	for i := len(st.Operation.Steps) - 1; i >= 0; i-- {
		if s := st.Operation.Steps[i]; s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %s in %+v", name, st.Operation.Steps)
	return contract.StepRecord{}
}

func stepTook(t *testing.T, st contract.Status, name string) time.Duration {
	s := step(t, st, name)
	return s.EndedAt.Sub(s.StartedAt).Round(time.Millisecond)
}
