package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/workflows"
)

// outageRepo is the repository the test's GitHub pushes name, the one its servers allow.
const outageRepo = "loss/gitops"

// githubPush is one signed GitHub push delivery carrying [slipway][create] for ref.
type githubPush struct {
	secret, body []byte
	id           string
}

func newGitHubPush(t *testing.T, secret []byte, id, rev, ref string) githubPush {
	body, err := json.Marshal(map[string]any{"ref": "refs/heads/main", "after": rev, "repository": map[string]string{"full_name": outageRepo},
		"sender":  map[string]any{"login": "alice", "id": 1001}, // the account GitHub says pushed: the requests' actor
		"commits": []map[string]string{{"id": rev, "message": "[slipway][create] " + ref}}})
	require.NoError(t, err)
	return githubPush{secret: secret, body: body, id: id}
}

// send posts the delivery byte for byte, as GitHub's "Redeliver" does.
func (p githubPush) send(t *testing.T, url string) (int, webhook.Response, http.Header) {
	req, err := http.NewRequest(http.MethodPost, url+"/github", bytes.NewReader(p.body))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, p.secret)
	mac.Write(p.body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", p.id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var r webhook.Response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	return resp.StatusCode, r, resp.Header
}

// The reproduction from the issue, on a dev server of the test's own: a delivery sent while
// Temporal is frozen is answered 503 (not 409, not "done"); its redelivery is carried out; a
// restarted webhook server and a second replica record it again, and the record's workflow ID
// makes each a duplicate: every instance runs exactly one operation.
func TestWebhookSurvivesATemporalOutageRestartsAndReplicas(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	ctx := context.Background()
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.Address = "" })
	require.NotNil(t, e.Server, "the test freezes a dev server of its own")
	cfg := []byte("stack: example\nparameters:\n  greeting: hello\n")
	testsuite.PushFiles(t, e.GitOpsRepo, "two instances", map[string][]byte{
		"instances/loss/a/instance.yaml": cfg, "instances/loss/b/instance.yaml": cfg})
	rev, err := e.Activities.Forge.Head(ctx)
	require.NoError(t, err)
	secret := []byte("outage-secret")
	replica := func() *httptest.Server {
		h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: secret, Repos: []string{outageRepo}}}, RecordTimeout: 2 * time.Second, RetryAfter: 5 * time.Second}, e.Client)
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv
	}
	first := replica()
	a := newGitHubPush(t, secret, "outage-a", rev, "loss/a")

	// 1. Temporal frozen: the delivery is answered 503 with Retry-After, and nothing is marked seen.
	require.NoError(t, syscall.Kill(e.Server.PID(), syscall.SIGSTOP))
	frozen := true
	defer func() {
		if frozen {
			_ = syscall.Kill(e.Server.PID(), syscall.SIGCONT)
		}
	}()
	began := time.Now()
	code, resp, header := a.send(t, first.URL)
	t.Logf("frozen Temporal: answered %d in %s: %s", code, time.Since(began).Round(time.Millisecond), resp.Error)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "5", header.Get("Retry-After"))
	require.NoError(t, syscall.Kill(e.Server.PID(), syscall.SIGCONT))
	frozen = false

	// 2. The operator redelivers once Temporal is back: recorded, 202, and loss/a is created.
	require.Eventually(t, func() bool {
		code, resp, _ = a.send(t, first.URL)
		return code != http.StatusServiceUnavailable
	}, 60*time.Second, 500*time.Millisecond, "Temporal answers again after SIGCONT")
	// The frozen server may still have taken the start it was sent before the 503: then the
	// record exists and the redelivery is its duplicate. Either way the delivery is not lost.
	t.Logf("redelivery after SIGCONT: %d %+v", code, resp)
	require.Contains(t, []int{http.StatusAccepted, http.StatusOK}, code, "the redelivery is carried out: %+v", resp)
	waitState(t, e, "loss/a", lifecycle.ConfigurationCreated)

	// 3. A restarted webhook server remembers nothing: it records the delivery again, and the
	// record's ID makes it a duplicate that starts nothing.
	restarted := replica()
	code, _, _ = a.send(t, restarted.URL)
	require.Equal(t, http.StatusAccepted, code)

	// 4. Two replicas behind a load balancer get the same delivery at once: both record it, one
	// record runs.
	b := newGitHubPush(t, secret, "replicas-b", rev, "loss/b")
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i, srv := range []*httptest.Server{first, restarted} {
		wg.Add(1)
		go func(i int, url string) {
			defer wg.Done()
			codes[i], _, _ = b.send(t, url)
		}(i, srv.URL)
	}
	wg.Wait()
	assert.Equal(t, []int{http.StatusAccepted, http.StatusAccepted}, codes)
	waitState(t, e, "loss/b", lifecycle.ConfigurationCreated)
	require.Eventually(t, func() bool {
		n, err := e.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: e.Client.Namespace,
			Query: "WorkflowType = '" + contract.DeliveryBatchWorkflowName + "' AND ExecutionStatus = 'Running'"})
		return err == nil && n.GetCount() == 0
	}, 30*time.Second, 200*time.Millisecond, "every batch has filed its deliveries")
	filed, dups := map[string]int{}, map[string]int{}
	batches, err := e.Client.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: e.Client.Namespace,
		Query: "WorkflowType = '" + contract.DeliveryBatchWorkflowName + "'"})
	require.NoError(t, err)
	for _, ex := range batches.Executions {
		var res workflows.BatchResult
		require.NoError(t, e.Client.Temporal.GetWorkflow(ctx, ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()).Get(ctx, &res))
		require.Empty(t, res.Failed)
		for _, id := range res.Filed {
			filed[id]++
		}
		for _, id := range res.Duplicates {
			dups[id]++
		}
		if len(res.Filed) > 0 {
			testsuite.RecordHistories(t, e.Client.Temporal, ex.GetExecution().GetWorkflowId(), "webhook-delivery")
		}
	}
	t.Logf("records filed %v, found duplicates %v", filed, dups)
	for id, n := range filed {
		require.Equal(t, 1, n, "delivery %s is filed exactly once", id)
	}
	require.Len(t, filed, 2)
	// The restarted server's record of outage-a is a duplicate; so is the redelivery's when the
	// frozen server took the start it was sent before the 503 (a race the 503 cannot see).
	require.Contains(t, []int{1, 2}, dups[contract.DeliveryWorkflowID("github", "outage-a")], "outage-a's later records were found duplicates")
	require.Equal(t, 1, dups[contract.DeliveryWorkflowID("github", "replicas-b")], "the second replica's record was found a duplicate")

	// Exactly one operation each, and the records say what became of each command.
	for _, ref := range []string{"loss/a", "loss/b"} {
		st := e.Status(ref)
		require.Empty(t, st.History, "%s ran exactly one operation", ref)
		require.Equal(t, contract.ResultSucceeded, st.Operation.Result)
	}
	evs, err := e.Client.Events(ctx, 10)
	require.NoError(t, err)
	require.Len(t, evs, 2, "one record per delivery, the 503 one included once")
	for _, ev := range evs {
		require.Eventually(t, func() bool {
			all, err := e.Client.Events(ctx, 10)
			require.NoError(t, err)
			for _, x := range all {
				if x.Workflow == ev.Workflow {
					ev = x
				}
			}
			return ev.Status == "completed"
		}, 30*time.Second, 200*time.Millisecond)
		require.Len(t, ev.Outcomes, 1, ev.Workflow)
		require.True(t, ev.Outcomes[0].Started, "%s: %+v", ev.Workflow, ev.Outcomes[0])
	}
	out := e.MustCLI(0, "events").Stdout
	require.Contains(t, out, "delivery/github/outage-a")
	require.Regexp(t, `started  provision loss/b \(request github/[0-9a-f]{24}\)`, out, "the request is keyed by the command's content")
}

func waitState(t *testing.T, e *testsuite.Env, ref string, want lifecycle.State) {
	t.Helper()
	cr, err := contract.ParseRef(ref)
	require.NoError(t, err)
	r := contract.Ref{Tenant: cr.Tenant, Name: cr.Name}
	require.Eventually(t, func() bool {
		st, err := e.Client.Status(context.Background(), r, contract.StatusRequest{})
		return err == nil && st.State == want
	}, 90*time.Second, 200*time.Millisecond, "%s reaches %s", ref, want)
}
