package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

var secret = []byte("s3cret")

type submitted struct {
	ref       steps.Ref
	op        lifecycle.Operation
	req       workflows.OperationRequest
	requestID string
}

// recorder stands in for the Temporal client: it records what would start.
type recorder struct {
	mu    sync.Mutex
	calls []submitted
}

func (r *recorder) Submit(_ context.Context, ref steps.Ref, op lifecycle.Operation, req workflows.OperationRequest, id string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, submitted{ref, op, req, id})
	return id, nil
}

// repo maps rev -> repo-relative path -> content.
type repo map[string]map[string]string

func (r repo) ReadDir(_ context.Context, rev, dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for p, c := range r[rev] {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
			out[rest] = []byte(c)
		}
	}
	return out, nil
}

func newServer(t *testing.T, o Options, rp repo) (*Server, *recorder) {
	o.Secret = secret
	rec := &recorder{}
	s, err := New(o, rec, rp)
	require.NoError(t, err)
	return s, rec
}

func githubRequest(event, delivery string, body []byte, sign bool) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/github", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-GitHub-Event", event)
	r.Header.Set("X-GitHub-Delivery", delivery)
	if sign {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		r.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	return r
}

func serve(s *Server, r *http.Request) (int, Response) {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	var resp Response
	_ = json.Unmarshal(w.Body.Bytes(), &resp)
	return w.Code, resp
}

const pushBody = `{"ref":"refs/heads/main","after":"c2","commits":[
 {"id":"c1","message":"two shops\n\n[slipway][create] acme/shop\n[slipway][deploy] acme/web"},
 {"id":"c2","message":"[slipway][deprovision] acme/old\n[slipway][bogus] acme/x"}]}`

func TestGitHubPushStartsEachCommandOnceAndRedeliveryNothing(t *testing.T) {
	rp := repo{"c1": {"instances/acme/shop/instance.yaml": "stack: example\n"}}
	s, rec := newServer(t, Options{}, rp)
	code, resp := serve(s, githubRequest("push", "d-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code, "202 when something started, with what was refused")
	require.Len(t, resp.Started, 2)
	require.Equal(t, "acme/shop", resp.Started[0].Instance)
	require.Equal(t, "instance/acme/shop", resp.Started[0].Workflow)
	require.Len(t, resp.Refused, 2, "deprovision is disabled and bogus is no operation: %+v", resp.Refused)
	require.Equal(t, []submitted{
		{steps.Ref{Tenant: "acme", Name: "shop"}, lifecycle.OpProvision, workflows.OperationRequest{ConfigYAML: "stack: example\n", Actor: "webhook/github (d-1 webhook)"}, "github/d-1/0"},
		{steps.Ref{Tenant: "acme", Name: "web"}, lifecycle.OpDeploy, workflows.OperationRequest{Actor: "webhook/github (d-1 webhook)"}, "github/d-1/1"},
	}, rec.calls)

	code, resp = serve(s, githubRequest("push", "d-1", []byte(pushBody), true))
	require.Equal(t, http.StatusOK, code)
	require.True(t, resp.Duplicate)
	require.Len(t, rec.calls, 2, "a redelivery starts nothing")
}

func TestBadSignaturesAreRefusedAndStartNothing(t *testing.T) {
	s, rec := newServer(t, Options{}, repo{})
	body := []byte(pushBody)
	unsigned := githubRequest("push", "d-2", body, false)
	code, _ := serve(s, unsigned)
	require.Equal(t, http.StatusUnauthorized, code)

	wrong := githubRequest("push", "d-3", body, true)
	wrong.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
	code, _ = serve(s, wrong)
	require.Equal(t, http.StatusUnauthorized, code)

	sha1Only := githubRequest("push", "d-4", body, false)
	mac := hmac.New(sha1.New, secret)
	mac.Write(body)
	sha1Only.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(mac.Sum(nil)))
	code, _ = serve(s, sha1Only)
	require.Equal(t, http.StatusUnauthorized, code, "SHA-1 signatures are refused")

	gl := httptest.NewRequest(http.MethodPost, "/gitlab", strings.NewReader(`{}`))
	gl.Header.Set("X-Gitlab-Token", "guess")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, gl)
	require.Equal(t, http.StatusUnauthorized, w.Code)
	require.NotContains(t, w.Body.String(), "guess", "the token is never echoed")
	require.NotContains(t, w.Body.String(), string(secret))
	require.Empty(t, rec.calls)
}

func TestMalformedAndOversizedBodies(t *testing.T) {
	s, rec := newServer(t, Options{MaxBody: 64}, repo{})
	code, _ := serve(s, githubRequest("push", "d-5", []byte(`{"ref":`), true))
	require.Equal(t, http.StatusBadRequest, code)
	code, _ = serve(s, githubRequest("push", "d-6", bytes.Repeat([]byte(" "), 100), true))
	require.Equal(t, http.StatusRequestEntityTooLarge, code)
	require.Empty(t, rec.calls)
}

func TestGiteaAndGitLabPushes(t *testing.T) {
	s, rec := newServer(t, Options{}, repo{})
	body := []byte(`{"ref":"refs/heads/main","commits":[{"id":"a1","message":"[slipway][archive] acme/web"}]}`)
	r := httptest.NewRequest(http.MethodPost, "/gitea", bytes.NewReader(body))
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	r.Header.Set("X-Gitea-Signature", hex.EncodeToString(mac.Sum(nil)))
	r.Header.Set("X-Gitea-Event", "push")
	r.Header.Set("X-Gitea-Delivery", "g-1")
	code, _ := serve(s, r)
	require.Equal(t, http.StatusAccepted, code)

	r = httptest.NewRequest(http.MethodPost, "/gitlab", bytes.NewReader(body))
	r.Header.Set("X-Gitlab-Token", string(secret))
	r.Header.Set("X-Gitlab-Event", "Push Hook")
	r.Header.Set("X-Gitlab-Event-UUID", "l-1")
	code, _ = serve(s, r)
	require.Equal(t, http.StatusAccepted, code)

	other := []byte(`{"ref":"refs/heads/feature","commits":[{"id":"a2","message":"[slipway][archive] acme/web"}]}`)
	r = httptest.NewRequest(http.MethodPost, "/gitlab", bytes.NewReader(other))
	r.Header.Set("X-Gitlab-Token", string(secret))
	r.Header.Set("X-Gitlab-Event", "Push Hook")
	r.Header.Set("X-Gitlab-Event-UUID", "l-2")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	require.Equal(t, http.StatusNoContent, w.Code, "an event that names nothing")
	require.Contains(t, w.Header().Get("X-Slipway-Ignored"), "feature")
	require.Len(t, rec.calls, 2)
	require.Equal(t, "gitea/g-1/0", rec.calls[0].requestID)
	require.Equal(t, "gitlab/l-1/0", rec.calls[1].requestID)
}

func TestMergedPullRequestChangesInstances(t *testing.T) {
	rp := repo{
		"base":  {"instances/acme/web/instance.yaml": "replicas: 1\n", "instances/acme/old/instance.yaml": "x\n", "instances/acme/same/instance.yaml": "s\n"},
		"merge": {"instances/acme/web/instance.yaml": "replicas: 2\n", "instances/acme/new/instance.yaml": "n\n", "instances/acme/same/instance.yaml": "s\n"},
	}
	pr := func(head string) []byte {
		return []byte(`{"action":"closed","pull_request":{"merged":true,"merge_commit_sha":"merge","base":{"ref":"main","sha":"base"},"head":{"ref":"` + head + `"}}}`)
	}
	s, rec := newServer(t, Options{AllowDeprovision: true}, rp)
	code, resp := serve(s, githubRequest("pull_request", "p-1", pr("feature/more"), true))
	require.Equal(t, http.StatusAccepted, code)
	require.Equal(t, []Started{
		{Instance: "acme/new", Operation: "provision", Workflow: "instance/acme/new", Request: "github/p-1/0"},
		{Instance: "acme/old", Operation: "deprovision", Workflow: "instance/acme/old", Request: "github/p-1/1"},
		{Instance: "acme/web", Operation: "deploy", Workflow: "instance/acme/web", Request: "github/p-1/2"},
	}, resp.Started)
	require.Equal(t, "replicas: 2\n", rec.calls[2].req.ConfigYAML)
	require.True(t, rec.calls[1].req.Confirm)

	code, _ = serve(s, githubRequest("pull_request", "p-2", pr("slipway/acme/web/deploy-1-x"), true))
	require.Equal(t, http.StatusNoContent, code, "slipway's own MRs start nothing")
	require.Len(t, rec.calls, 3)
}

func TestNoSecretNoServer(t *testing.T) {
	_, err := New(Options{}, &recorder{}, repo{})
	require.ErrorContains(t, err, "SLIPWAY_WEBHOOK_SECRET")
}

// rejecting refuses every request as the instance's state would.
type rejecting struct{}

func (rejecting) Submit(context.Context, steps.Ref, lifecycle.Operation, workflows.OperationRequest, string) (string, error) {
	return "", errors.New("rejected: archive is not allowed in state ConfigurationCreated")
}

func TestNothingStartedIsAConflictWithReasons(t *testing.T) {
	s, err := New(Options{Secret: secret}, rejecting{}, repo{})
	require.NoError(t, err)
	body := []byte(`{"ref":"refs/heads/main","commits":[{"id":"c1","message":"[slipway][archive] acme/web"}]}`)
	code, resp := serve(s, githubRequest("push", "c-1", body, true))
	require.Equal(t, http.StatusConflict, code)
	require.Contains(t, resp.Refused[0].Error, "not allowed in state ConfigurationCreated")
}
