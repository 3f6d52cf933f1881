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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

var secret = []byte("s3cret")

// gitlabToken is GitLab's own token: a server refuses one that is another forge's secret.
var gitlabToken = []byte("gl-token")

// forges serves every forge for the GitOps repository acme/gitops, each with its own secret.
func forges() map[string]ForgeOptions {
	return map[string]ForgeOptions{
		"github": {Secret: secret, Repos: []string{"acme/gitops"}},
		"gitea":  {Secret: secret, Repos: []string{"acme/gitops"}},
		"gitlab": {Secret: gitlabToken, Repos: []string{"acme/gitops"}},
	}
}

// recorder stands in for Temporal: it keeps each batch recorded, and fails while down is set.
type recorder struct {
	mu      sync.Mutex
	calls   []contract.Delivery
	batches int
	down    error
}

func (r *recorder) RecordDeliveries(_ context.Context, ds []contract.Delivery) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down != nil {
		return r.down
	}
	r.batches++
	r.calls = append(r.calls, ds...)
	return nil
}

func newServer(t *testing.T, o Options) (*Server, *recorder) {
	if o.Forges == nil {
		o.Forges = forges()
	}
	rec := &recorder{}
	s, err := New(o, rec)
	require.NoError(t, err)
	t.Cleanup(s.Close)
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

const pushBody = `{"ref":"refs/heads/main","after":"c2","repository":{"full_name":"acme/gitops"},"sender":{"login":"alice"},"commits":[
 {"id":"c1","message":"two shops\n\n[slipway][create] acme/shop\n[slipway][deploy] acme/web","author":{"name":"Bob","email":"bob@example.com"}},
 {"id":"c2","message":"[slipway][deprovision] acme/old\n[slipway][bogus] acme/x"}]}`

func TestGitHubPushIsRecordedOnceAndAnswered202(t *testing.T) {
	s, rec := newServer(t, Options{})
	code, resp := serve(s, githubRequest("push", "d-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code, "202 once recorded, with what was refused")
	require.True(t, resp.Accepted)
	require.Equal(t, 2, resp.Commands)
	require.Equal(t, "delivery/github/d-1", resp.Workflow)
	require.Len(t, resp.Refused, 2, "deprovision is off and bogus is no operation: %+v", resp.Refused)
	require.Len(t, rec.calls, 1)
	d := rec.calls[0]
	require.Equal(t, []contract.DeliveryCommand{
		{Operation: "provision", Ref: contract.Ref{Tenant: "acme", Name: "shop"}, Rev: "c1", Repo: "acme/gitops", Author: "Bob <bob@example.com>"},
		{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "web"}, Rev: "c1", Repo: "acme/gitops", Author: "Bob <bob@example.com>"},
	}, d.Commands)
	require.Equal(t, "alice via github push (webhook delivery d-1)", d.Actor, "the user GitHub says pushed, not the delivery")
	require.Len(t, d.Refused, 2, "refusals are part of the delivery's record")

	code, resp = serve(s, githubRequest("push", "d-1", []byte(pushBody), true))
	require.Equal(t, http.StatusOK, code)
	require.True(t, resp.Duplicate)
	require.Len(t, rec.calls, 1, "a redelivery records nothing")
}

// A restarted server (or another replica) has no memory of the delivery: it records it again,
// and the record's workflow ID makes it a duplicate (workflows' and e2e tests show that).
func TestRedeliveryToAnotherReplicaIsRecordedAgain(t *testing.T) {
	rec := &recorder{}
	a, err := New(Options{Forges: forges()}, rec)
	require.NoError(t, err)
	defer a.Close()
	b, err := New(Options{Forges: forges()}, rec)
	require.NoError(t, err)
	defer b.Close()
	code, _ := serve(a, githubRequest("push", "r-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code)
	code, _ = serve(b, githubRequest("push", "r-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code)
	require.Len(t, rec.calls, 2)
	require.Equal(t, rec.calls[0], rec.calls[1], "the same delivery, so the same record ID")
}

// Deliveries arriving together share one round trip.
func TestConcurrentDeliveriesShareABatch(t *testing.T) {
	s, rec := newServer(t, Options{BatchWindow: 200 * time.Millisecond, BatchMax: 8})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code, _ := serve(s, githubRequest("push", "b-"+strconv.Itoa(i), []byte(pushBody), true))
			assert.Equal(t, http.StatusAccepted, code)
		}(i)
	}
	wg.Wait()
	require.Len(t, rec.calls, 8)
	require.Equal(t, 1, rec.batches, "8 deliveries within the window, at most 8 a batch: one round trip")
}

// Temporal down: 503 with Retry-After, nothing marked seen, and the redelivery is recorded.
func TestUnrecordedDeliveryIs503AndRedeliveryWorks(t *testing.T) {
	s, rec := newServer(t, Options{RetryAfter: 7 * time.Second})
	rec.down = errors.New("connection refused")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, githubRequest("push", "o-1", []byte(pushBody), true))
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	require.Equal(t, "7", w.Header().Get("Retry-After"))
	require.Contains(t, w.Body.String(), "redeliver it")
	require.Empty(t, rec.calls)

	rec.down = nil
	code, resp := serve(s, githubRequest("push", "o-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code, "the same delivery, redelivered, is recorded")
	require.False(t, resp.Duplicate)
	require.Len(t, rec.calls, 1)
}

// A record that hangs past RecordTimeout is answered 503 in time, not after the forge gave up.
func TestSlowRecordTimesOutAs503(t *testing.T) {
	s, err := New(Options{Forges: forges(), RecordTimeout: 50 * time.Millisecond}, hanging{})
	require.NoError(t, err)
	defer s.Close()
	code, resp := serve(s, githubRequest("push", "h-1", []byte(pushBody), true))
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, resp.Error, "deadline exceeded")
}

type hanging struct{}

func (hanging) RecordDeliveries(ctx context.Context, _ []contract.Delivery) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestBadSignaturesAreRefusedAndStartNothing(t *testing.T) {
	s, rec := newServer(t, Options{})
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
	s, rec := newServer(t, Options{MaxBody: 64})
	code, _ := serve(s, githubRequest("push", "d-5", []byte(`{"ref":`), true))
	require.Equal(t, http.StatusBadRequest, code)
	code, _ = serve(s, githubRequest("push", "d-6", bytes.Repeat([]byte(" "), 100), true))
	require.Equal(t, http.StatusRequestEntityTooLarge, code)
	require.Empty(t, rec.calls)
}

func TestGiteaAndGitLabPushes(t *testing.T) {
	s, rec := newServer(t, Options{})
	body := []byte(`{"ref":"refs/heads/main","repository":{"full_name":"acme/gitops"},"project":{"path_with_namespace":"acme/gitops"},
		"commits":[{"id":"a1","message":"[slipway][deploy] acme/web"}]}`)
	r := httptest.NewRequest(http.MethodPost, "/gitea", bytes.NewReader(body))
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	r.Header.Set("X-Gitea-Signature", hex.EncodeToString(mac.Sum(nil)))
	r.Header.Set("X-Gitea-Event", "push")
	r.Header.Set("X-Gitea-Delivery", "g-1")
	code, _ := serve(s, r)
	require.Equal(t, http.StatusAccepted, code)

	r = httptest.NewRequest(http.MethodPost, "/gitlab", bytes.NewReader(body))
	r.Header.Set("X-Gitlab-Token", string(gitlabToken))
	r.Header.Set("X-Gitlab-Event", "Push Hook")
	r.Header.Set("X-Gitlab-Event-UUID", "l-1")
	code, _ = serve(s, r)
	require.Equal(t, http.StatusAccepted, code)

	other := []byte(`{"ref":"refs/heads/feature","project":{"path_with_namespace":"acme/gitops"},"commits":[{"id":"a2","message":"[slipway][deploy] acme/web"}]}`)
	r = httptest.NewRequest(http.MethodPost, "/gitlab", bytes.NewReader(other))
	r.Header.Set("X-Gitlab-Token", string(gitlabToken))
	r.Header.Set("X-Gitlab-Event", "Push Hook")
	r.Header.Set("X-Gitlab-Event-UUID", "l-2")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	require.Equal(t, http.StatusNoContent, w.Code, "an event that names nothing")
	require.Contains(t, w.Header().Get("X-Slipway-Ignored"), "feature")
	require.Len(t, rec.calls, 2)
	require.Equal(t, "gitea", rec.calls[0].Provider)
	require.Equal(t, "g-1", rec.calls[0].ID)
	require.Equal(t, "gitlab", rec.calls[1].Provider)
	require.Equal(t, "l-1", rec.calls[1].ID)
}

func TestMergedPullRequestIsRecordedForTheWorkersToRead(t *testing.T) {
	pr := func(head string) []byte {
		return []byte(`{"action":"closed","repository":{"full_name":"acme/gitops"},"sender":{"login":"carol"},
			"pull_request":{"merged":true,"merge_commit_sha":"e1e1e1","user":{"login":"dave"},"base":{"ref":"main","sha":"ba5e"},"head":{"ref":"` + head + `"}}}`)
	}
	s, rec := newServer(t, Options{AllowDeprovision: true})
	code, resp := serve(s, githubRequest("pull_request", "p-1", pr("feature/more"), true))
	require.Equal(t, http.StatusAccepted, code)
	require.Contains(t, resp.Note, "read from the repository")
	require.Equal(t, &contract.MergeRange{Base: "ba5e", Merge: "e1e1e1", Repo: "acme/gitops", Author: "dave"}, rec.calls[0].Merge)
	require.Equal(t, "carol via github merge (webhook delivery p-1)", rec.calls[0].Actor)
	require.True(t, rec.calls[0].AllowDeprovision)

	code, _ = serve(s, githubRequest("pull_request", "p-2", pr("slipway/acme/web/deploy-1-x"), true))
	require.Equal(t, http.StatusNoContent, code, "slipway's own MRs start nothing")
	require.Len(t, rec.calls, 1)
}

func TestNoSecretNoServer(t *testing.T) {
	_, err := New(Options{}, &recorder{})
	require.ErrorContains(t, err, "no forge configured")
	for _, tc := range []struct {
		forges map[string]ForgeOptions
		want   string
	}{
		{map[string]ForgeOptions{"github": {Repos: []string{"acme/gitops"}}}, "github: no secret"},
		{map[string]ForgeOptions{"gitea": {Secret: secret}}, "gitea: no repository allowed"},
		{map[string]ForgeOptions{"github": {Secret: secret, Repos: []string{"acme"}}}, `github repositories: "acme" is not a repository`},
		{map[string]ForgeOptions{"github": {Secret: secret, Repos: []string{"acme/../x"}}}, "is not a repository"},
		{map[string]ForgeOptions{"bitbucket": {Secret: secret, Repos: []string{"a/b"}}}, `"bitbucket" is not one of`},
		{map[string]ForgeOptions{"github": {Secret: secret, Repos: []string{"a/b"}}, "gitlab": {Secret: secret, Repos: []string{"a/b"}}},
			"gitlab: the token is the github secret"},
	} {
		_, err := New(Options{Forges: tc.forges}, &recorder{})
		require.ErrorContains(t, err, tc.want)
	}
	_, err = New(Options{Forges: forges(), CommitOps: []lifecycle.Operation{lifecycle.OpDeprovision}}, &recorder{})
	require.ErrorContains(t, err, "deprovision also needs AllowDeprovision")
}

func TestOnlyMalformedCommandsAre422AndRecordNothing(t *testing.T) {
	s, rec := newServer(t, Options{})
	body := []byte(`{"ref":"refs/heads/main","repository":{"full_name":"acme/gitops"},"commits":[{"id":"c1","message":"[slipway][archive] Acme/Web\n[slipway][nuke] acme/web"}]}`)
	code, resp := serve(s, githubRequest("push", "c-1", body, true))
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Len(t, resp.Refused, 2)
	require.Contains(t, resp.Refused[0].Error, "line 1")
	require.Contains(t, resp.Refused[1].Error, `"nuke" is not an operation`)
	require.Empty(t, rec.calls)

	// A well-formed command the operator has not allowed is recorded refused, so the attempt shows.
	body = []byte(`{"ref":"refs/heads/main","repository":{"full_name":"acme/gitops"},"commits":[{"id":"c2","message":"[slipway][deprovision] acme/web"}]}`)
	code, resp = serve(s, githubRequest("push", "c-2", body, true))
	require.Equal(t, http.StatusAccepted, code)
	require.Zero(t, resp.Commands)
	require.Contains(t, resp.Refused[0].Error, "deprovision from a commit message is off")
	require.Len(t, rec.calls, 1)
	require.Empty(t, rec.calls[0].Commands)
	require.Len(t, rec.calls[0].Refused, 1)
}
