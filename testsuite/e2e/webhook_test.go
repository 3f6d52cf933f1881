package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
)

// lastDelivery keeps the latest accepted request to the webhook server so the test can
// replay it byte for byte (a redelivery) or with a forged signature.
type lastDelivery struct {
	mu      sync.Mutex
	header  http.Header
	body    []byte
	next    http.Handler
	count   int
	answers []string
}

func (l *lastDelivery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	header := r.Header.Clone()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	l.next.ServeHTTP(rec, r)
	l.mu.Lock()
	l.count++
	if rec.Code == http.StatusAccepted {
		l.header, l.body = header, body
	}
	l.answers = append(l.answers, fmt.Sprintf("%s %d %s", r.Header.Get("X-Gitea-Event"), rec.Code, rec.Body.String()))
	l.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (l *lastDelivery) log() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.answers, "\n")
}

// A commit pushed to a real Gitea with two [slipway][create] lines makes Gitea
// deliver a real webhook; it starts two lifecycles that open and merge their PRs
// in that same Gitea. A redelivery starts nothing; a bad signature gets 401.
func TestGiteaPushWebhookStartsTwoLifecycles(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	ctx := context.Background()
	gs, push := giteaGitOps(t, nil)

	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "gitea", URL: gs.URL, Repo: gs.AdminUser + "/gitops", Token: gs.Token}
	})
	secret := "webhook-secret-for-e2e"
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{
		"gitea": {Secret: []byte(secret), Repos: []string{gs.AdminUser + "/gitops"}}}}, e.Client)
	require.NoError(t, err)
	last := &lastDelivery{next: h}
	srv := httptest.NewServer(last)
	t.Cleanup(srv.Close)
	require.NoError(t, gs.AddWebhook(ctx, "gitops", srv.URL+"/gitea", secret))

	cfg := []byte("stack: example\nparameters:\n  greeting: hello\n")
	testsuite.PushFiles(t, push, "two shops\n\n[slipway][create] acme/a\n[slipway][create] acme/b\n", map[string][]byte{
		"instances/acme/a/instance.yaml": cfg, "instances/acme/b/instance.yaml": cfg,
	})
	refs := []contract.Ref{{Tenant: "acme", Name: "a"}, {Tenant: "acme", Name: "b"}}
	ok := assert.Eventually(t, func() bool {
		for _, ref := range refs {
			st, err := e.Client.Status(ctx, ref, contract.StatusRequest{})
			if err != nil || st.State != lifecycle.ConfigurationCreated {
				return false
			}
		}
		return true
	}, 90*time.Second, 250*time.Millisecond, "both instances provisioned from the webhook")
	if !ok {
		for _, ref := range refs {
			st, err := e.Client.Status(ctx, ref, contract.StatusRequest{Output: contract.OutputAll})
			t.Logf("%s: %+v %v", ref, st, err)
			if err == nil && st.Failure != nil {
				t.Logf("%s failure: %+v", ref, *st.Failure)
			}
		}
		t.Fatalf("deliveries:\n%s", last.log())
	}
	for _, ref := range refs {
		st, err := e.Client.Status(ctx, ref, contract.StatusRequest{Output: contract.OutputAll})
		require.NoError(t, err)
		require.Empty(t, st.History, "%s ran exactly one operation", ref)
		mr := st.Operation.Steps
		require.NotEmpty(t, mr)
		got, ok, err := e.Activities.Forge.Get(ctx, contract.BranchFor(ref, "provision", st.Operation.ID))
		require.NoError(t, err)
		require.True(t, ok, "the PR is in Gitea")
		require.NotEmpty(t, got.MergeSHA, "and merged there")
		files, err := e.Activities.Forge.ReadDir(ctx, "", "instances/acme/"+ref.Name+"/terraform")
		require.NoError(t, err)
		require.NotEmpty(t, files, "the rendered instance is on Gitea's main")
	}

	// Replay Gitea's own delivery: same body, same delivery ID → nothing new starts.
	last.mu.Lock()
	header, body := last.header.Clone(), append([]byte(nil), last.body...)
	last.mu.Unlock()
	require.NotEmpty(t, header.Get("X-Gitea-Delivery"))
	code := post(t, srv.URL+"/gitea", header, body)
	require.Equal(t, http.StatusOK, code, "a redelivery is answered, not started")
	header.Set("X-Gitea-Signature", strings.Repeat("0", 64))
	header.Set("X-Gitea-Delivery", "forged-delivery")
	require.Equal(t, http.StatusUnauthorized, post(t, srv.URL+"/gitea", header, body))
	time.Sleep(time.Second)
	for _, ref := range refs {
		st, err := e.Client.Status(ctx, ref, contract.StatusRequest{Output: contract.OutputAll})
		require.NoError(t, err)
		require.Empty(t, st.History, "%s: still exactly one operation after the redelivery", ref)
		require.Equal(t, lifecycle.ConfigurationCreated, st.State)
	}
}

func post(t *testing.T, url string, header http.Header, body []byte) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
