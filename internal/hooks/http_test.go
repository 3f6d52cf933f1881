package hooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// seen is one request an http hook made.
type seen struct {
	header http.Header
	doc    map[string]any
}

// hookServer answers call N with answers[N-1] and records every request.
func hookServer(t *testing.T, status int, answers ...string) (*httptest.Server, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var reqs []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var doc map[string]any
		assert.NoError(t, json.Unmarshal(body, &doc))
		assert.Equal(t, http.MethodPost, r.Method)
		mu.Lock()
		reqs = append(reqs, seen{header: r.Header.Clone(), doc: doc})
		n := len(reqs)
		mu.Unlock()
		w.WriteHeader(status)
		if n <= len(answers) {
			_, _ = io.WriteString(w, answers[n-1])
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return reqs
	}
}

func httpCall(url string) Call {
	return Call{
		Spec:      Spec{Name: PostDeploy, Kind: KindHTTP, URL: "http://127.0.0.1/ready", Deadline: time.Minute},
		URL:       url,
		Tenant:    "acme",
		Name:      "web",
		Operation: "deploy",
		Current:   contract.HookState{State: "Deploying", App: "running", Data: "available"},
		Next:      contract.HookState{State: "Ready", App: "running", Data: "available", Operation: "deploy"},
		Outputs:   map[string]any{"endpoint": "https://web.example"},
		Deadline:  time.Now().Add(time.Minute),
	}
}

func TestHTTPAnswers(t *testing.T) {
	t.Parallel()
	srv, requests := hookServer(t, http.StatusOK, "-2\n", " 3 ")
	var rec recorder
	r := rec.runner()
	r.HTTP = loopbackRunner(t).HTTP
	out, err := r.Run(context.Background(), httpCall(srv.URL+"/ready/acme/web"))
	require.NoError(t, err)
	assert.Equal(t, contract.HookOutput{Kind: KindHTTP, Calls: 2, Waited: 5 * time.Second, Answers: []string{"-2", "3"}, Output: "-2\n 3 "}, out)
	assert.Equal(t, []time.Duration{2 * time.Second, 3 * time.Second}, rec.sleeps)

	reqs := requests()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		assert.Equal(t, PostDeploy, r.header.Get("X-Slipway-Hook"))
		assert.Equal(t, strconv.Itoa(i+1), r.header.Get("X-Slipway-Call"))
		assert.Equal(t, float64(i+1), r.doc["call"])
	}
	assert.Equal(t, map[string]any{"hook": "post-deploy", "operation": "deploy", "tenant": "acme", "name": "web", "call": float64(1),
		"current": map[string]any{"state": "Deploying", "app": "running", "data": "available"},
		"next":    map[string]any{"state": "Ready", "app": "running", "data": "available", "operation": "deploy"},
		"outputs": map[string]any{"endpoint": "https://web.example"}}, reqs[0].doc)
}

func TestHTTPEmptyBodyIsDone(t *testing.T) {
	t.Parallel()
	srv, requests := hookServer(t, http.StatusNoContent)
	out, err := loopbackRunner(t).Run(context.Background(), httpCall(srv.URL))
	require.NoError(t, err)
	assert.Equal(t, 1, out.Calls)
	assert.Len(t, requests(), 1)
}

func TestHTTPNon2xxFails(t *testing.T) {
	t.Parallel()
	srv, _ := hookServer(t, http.StatusServiceUnavailable, "still busy")
	out, err := loopbackRunner(t).Run(context.Background(), httpCall(srv.URL+"/ready?token=s3cret"))
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FailedError{Hook: PostDeploy, Kind: KindHTTP, Target: srv.URL + "/ready", Call: 1, Status: 503, Output: "still busy"}, *fe)
	assert.Equal(t, "post-deploy hook (http "+srv.URL+"/ready) answered HTTP 503 on call 1: still busy", err.Error())
	assert.Equal(t, "still busy", out.Output)
}

func TestHTTPTransportError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/ready?token=s3cret"
	srv.Close()
	_, err := loopbackRunner(t).Run(context.Background(), httpCall(url))
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	assert.Zero(t, fe.Status)
	assert.NotEmpty(t, fe.Err)
	assert.NotContains(t, err.Error(), "s3cret", "the query may carry a token")
}

func TestHTTPDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := httpCall(srv.URL)
	c.Deadline = time.Now().Add(200 * time.Millisecond)
	_, err := loopbackRunner(t).Run(context.Background(), c)
	var de *DeadlineError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, 1, de.Calls)
	assert.Zero(t, de.Wait)
}

func TestHTTPOnlyHTTPURLs(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"ftp://host/x", "file:///etc/passwd", "/relative", "http://"} {
		_, err := loopbackRunner(t).Run(context.Background(), httpCall(url))
		var ie *InvalidSpecError
		require.ErrorAs(t, err, &ie, url)
		assert.Equal(t, KindHTTP, ie.Field, url)
	}
}

// loopbackRunner is a Runner whose hooks may reach this test's servers on 127.0.0.1, as an
// operator allows them with SLIPWAY_HOOK_ALLOW_CIDRS.
func loopbackRunner(t *testing.T) *Runner {
	c, err := NewClient("127.0.0.1/32")
	require.NoError(t, err)
	return &Runner{HTTP: c}
}

// The case 4 attack on the runner: a hook whose destination is an internal service the operator
// did not allow is refused as it dials, a redirect is not followed, and neither the internal
// answer nor the redirect's body becomes the step's output.
func TestHTTPRefusesInternalDestinations(t *testing.T) {
	t.Parallel()
	var internal atomic.Int32
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internal.Add(1)
		_, _ = io.WriteString(w, "FLUSHED internal-admin-token")
	}))
	t.Cleanup(admin.Close)

	out, err := (&Runner{}).Run(context.Background(), httpCall(admin.URL+"/admin/flush"))
	var fe *FailedError
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Err, "refused to connect to 127.0.0.1:")
	assert.Contains(t, fe.Err, "a loopback address (allow it explicitly with SLIPWAY_HOOK_ALLOW_CIDRS)")
	assert.Empty(t, out.Output)
	assert.Zero(t, internal.Load(), "the internal service was never reached")

	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, admin.URL+"/admin/flush", http.StatusFound)
	}))
	t.Cleanup(redirect.Close)
	out, err = loopbackRunner(t).Run(context.Background(), httpCall(redirect.URL+"/ready"))
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Err, "redirects are not followed")
	assert.Zero(t, fe.Status)
	assert.Empty(t, out.Output)
	assert.NotContains(t, err.Error(), "FLUSHED")
	assert.Zero(t, internal.Load(), "the redirect was not followed")
}
