package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/workflows"
)

// receiver is a real HTTP endpoint that verifies each webhook delivery's signature and refuses
// replays, as an operator's receiver would, and keeps what arrived.
type receiver struct {
	secret  []byte
	replays notify.Replays
	mu      sync.Mutex
	got     []notify.Event
	dups    int
	refused []string
	slack   []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r.URL.Path == "/gone" {
		http.Error(w, "this hook was deleted", http.StatusGone)
		return
	}
	if r.URL.Path == "/slack" {
		var m struct{ Text string }
		_ = json.Unmarshal(body, &m)
		rc.slack = append(rc.slack, m.Text)
		return
	}
	id, err := notify.Verify(rc.secret, r.Header, body, time.Now(), notify.DefaultTolerance)
	if err != nil {
		rc.refused = append(rc.refused, err.Error())
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if rc.replays.Seen(id) {
		rc.dups++
		return // a duplicate is acknowledged, never processed twice
	}
	var ev notify.Event
	_ = json.Unmarshal(body, &ev)
	rc.got = append(rc.got, ev)
}

func (rc *receiver) kinds() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, ev := range rc.got {
		out = append(out, fmt.Sprintf("%s %s%s", ev.Kind, ev.Instance, ev.Rollout))
	}
	sort.Strings(out)
	return out
}

// Notifications on the real stack: a signed webhook, a Slack-compatible hook and the forge (git
// notes on localgit) hear of Ready, Failed, Drifted and each rollout batch, once per transition.
func TestNotificationsArriveSignedOncePerTransition(t *testing.T) {
	rc := &receiver{secret: []byte("s3cret-for-the-test")}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	t.Setenv("SLIPWAY_E2E_HOOK_SECRET", string(rc.secret))
	file := filepath.Join(t.TempDir(), "notify.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`sinks:
  - name: ops
    kind: webhook
    url: %s/hook
    secretEnv: SLIPWAY_E2E_HOOK_SECRET
  - name: chat
    kind: slack
    url: %s/slack
    events: [Failed]
  - name: git
    kind: forge
    tenants: [note]
  - name: broken
    kind: webhook
    url: %s/gone
    secretEnv: SLIPWAY_E2E_HOOK_SECRET
    events: [Ready]
`, srv.URL, srv.URL, srv.URL)), 0o600))
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken, o.NotifyFile = "argocd", stack.ArgoURL, stack.ArgoToken, file
	})
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	e.MustCLI(0, "create", "note/web", "-f", cfg, "--wait")
	e.MustCLI(0, "deploy", "note/web", "--wait") // Ready

	unlock := lockState(t, e, "note", "web")
	v2 := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 2\n")
	e.MustCLI(1, "deploy", "note/web", "-f", v2, "--wait") // Failed
	unlock()
	e.MustCLI(0, "retry", "note/web", "--wait") // still Ready: no new transition

	tamperState(t, e, "note", "web")
	e.MustCLI(0, "drift", "check", "--tenant", "note") // Drifted
	e.MustCLI(0, "drift", "check", "--tenant", "note") // still Drifted: no new transition
	e.MustCLI(0, "rollout", "start", "--stack", "example", "--tenant", "note", "--set", "replicas=3", "--batch", "1", "--id", "note-r", "--wait")

	want := []string{"Drifted note/web", "Failed note/web", "Ready note/web", "RolloutBatch note-r"}
	require.Eventually(t, func() bool { return len(rc.kinds()) >= len(want) }, time.Minute, 100*time.Millisecond, "got %v", rc.kinds())
	time.Sleep(2 * time.Second) // anything more would be a duplicate: give it the chance to arrive
	require.Equal(t, want, rc.kinds(), "each transition once")
	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Empty(t, rc.refused, "every signature verified")
	require.Zero(t, rc.dups, "no delivery came twice")
	require.Len(t, rc.slack, 1, "the Slack sink wants Failed only")
	require.Contains(t, rc.slack[0], "note/web")
	// The sink that answers 410 Gone is recorded as undelivered; the lifecycle went on regardless.
	var ready notify.Event
	for _, ev := range rc.got {
		if ev.Kind == notify.KindReady {
			ready = ev
		}
	}
	var res workflows.NotifyResult
	require.NoError(t, e.Client.Temporal.GetWorkflow(t.Context(), "notify/"+ready.ID, "").Get(t.Context(), &res))
	byName := map[string]contract.SinkDelivery{}
	for _, d := range res.Deliveries {
		byName[d.Sink] = d
	}
	require.True(t, byName["ops"].Delivered)
	require.True(t, byName["git"].Delivered)
	require.False(t, byName["broken"].Delivered)
	require.Contains(t, byName["broken"].Error, "410")
	events := e.MustCLI(0, "events", "note/web").Stdout
	for _, line := range []string{"notified   notification Ready sent to ops, git, broken", "notified   notification Failed sent",
		"drift      drift check: drifted: terraform_data.app (update)", "notified   notification Drifted sent",
		"requested  deploy requested by " + devenv.LocalAdmin().Name + " (note: rollout/note-r)"} {
		require.Contains(t, events, line)
	}
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "note", Name: "web"}), "notify")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.RolloutWorkflowID("note-r"), "rollout")
	// The forge sink set a commit status on each event's revision and commented on the MR.
	for _, ev := range rc.got {
		switch ev.Kind {
		case notify.KindFailed:
			require.Equal(t, "tf-plan", ev.Step)
			require.NotNil(t, ev.MR, "the failed deploy's MR is in the event")
			require.Contains(t, forgeNotes(t, e, localgit.CommentNotes, ev.MR.MergeSHA), "**slipway: Failed** · note/web")
		case notify.KindReady:
			require.Equal(t, "2 to add, 0 to change, 0 to destroy", ev.Plan, "the deploy's plan summary rides along")
			require.Contains(t, forgeNotes(t, e, localgit.StatusNotes, ev.Revision), "slipway/note/web\tsuccess\t")
		case notify.KindDrifted:
			// The drifted revision is the one the failed deploy merged: its status was set to
			// failure, then replaced (one status per context) when drift was found there.
			require.Contains(t, forgeNotes(t, e, localgit.StatusNotes, ev.Revision), "slipway/note/web\terror\tnote/web drifted")
		}
	}
}

// forgeNotes is what localgit recorded for a commit under ref.
func forgeNotes(t *testing.T, e *testsuite.Env, ref, sha string) string {
	require.NotEmpty(t, sha)
	out := testsuite.Git(t, e.GitOpsRepo, "notes", "--ref", ref, "show", sha)
	require.Contains(t, out, "note/web")
	return out
}
