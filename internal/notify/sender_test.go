package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a loopback endpoint that answers status and remembers what it got.
type recorder struct {
	mu     sync.Mutex
	status int
	answer string
	hits   []captured
}

type captured struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func newRecorder(t *testing.T, status int, answer string) (*recorder, *httptest.Server) {
	r := &recorder{status: status, answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.hits = append(r.hits, captured{req.Method, req.URL.Path, req.Header.Clone(), body})
		r.mu.Unlock()
		if r.status >= 300 && r.status < 400 {
			w.Header().Set("Location", "/moved")
		}
		w.WriteHeader(r.status)
		_, _ = io.WriteString(w, r.answer)
	}))
	t.Cleanup(srv.Close)
	return r, srv
}

func (r *recorder) last(t *testing.T) captured {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.hits, "no request arrived")
	return r.hits[len(r.hits)-1]
}

func sinkFor(t *testing.T, kind SinkKind, url string) Sink {
	t.Helper()
	doc := fmt.Sprintf("sinks:\n  - {name: s, kind: %s, url: %q}\n", kind, url)
	if kind == SinkWebhook {
		doc = fmt.Sprintf("sinks:\n  - {name: s, kind: webhook, url: %q, secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n", url)
	}
	cfg, err := Parse([]byte(doc), testEnv)
	require.NoError(t, err)
	return cfg.Sinks[0]
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func failedEvent() Event {
	return Event{
		ID: "acme/web/deploy-7/DeploymentFailed", Kind: KindFailed, Tenant: "acme", Instance: "acme/web",
		State: "DeploymentFailed", Operation: "deploy", Step: "apply",
		Message:  "terraform apply: timeout <waiting> & gave up",
		Revision: "abc123", Plan: "1 to add, 0 to change, 0 to destroy",
		MR:      &forge.MergeRequest{ID: "7", Branch: "slipway/acme/web/deploy-7", URL: "https://git.example.com/mr/7"},
		Details: map[string]string{"attempt": "3"}, At: t0.Add(-time.Minute),
	}
}

func TestWebhookDeliverySigned(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusOK, "ok")
	sink := sinkFor(t, SinkWebhook, srv.URL+"/hook")
	snd := NewSender(WithClock(func() time.Time { return t0 }))
	ev := failedEvent()
	require.NoError(t, snd.Deliver(context.Background(), sink, ev))

	got := rec.last(t)
	assert.Equal(t, http.MethodPost, got.Method)
	assert.Equal(t, "/hook", got.Path)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, "slipway-notify", got.Header.Get("User-Agent"))
	assert.Equal(t, ev.ID, got.Header.Get(HeaderDelivery))
	assert.Equal(t, "Failed", got.Header.Get(HeaderEvent))
	assert.Equal(t, fmt.Sprint(t0.Unix()), got.Header.Get(HeaderTimestamp))
	assert.Equal(t, Sign([]byte(testSecret), fmt.Sprint(t0.Unix()), got.Body), got.Header.Get(HeaderSignature))
	assert.Regexp(t, `^sha256=[0-9a-f]{64}$`, got.Header.Get(HeaderSignature))

	var back Event
	require.NoError(t, json.Unmarshal(got.Body, &back))
	assert.Equal(t, ev.ID, back.ID)
	assert.Equal(t, ev.MR.URL, back.MR.URL)
	assert.True(t, ev.At.Equal(back.At))
	assert.Equal(t, ev.Details, back.Details)

	// The receiver's side.
	id, err := Verify([]byte(testSecret), got.Header, got.Body, t0.Add(30*time.Second), time.Minute)
	require.NoError(t, err)
	assert.Equal(t, ev.ID, id)

	tampered := []byte(strings.Replace(string(got.Body), "timeout", "success", 1))
	_, err = Verify([]byte(testSecret), got.Header, tampered, t0, time.Minute)
	assert.ErrorIs(t, err, ErrBadSignature)

	_, err = Verify([]byte("the wrong secret"), got.Header, got.Body, t0, time.Minute)
	assert.ErrorIs(t, err, ErrBadSignature)

	_, err = Verify([]byte(testSecret), got.Header, got.Body, t0.Add(10*time.Minute), 5*time.Minute)
	assert.ErrorIs(t, err, ErrStale)
	assert.Contains(t, err.Error(), "10m0s from now, tolerance 5m0s")
	_, err = Verify([]byte(testSecret), got.Header, got.Body, t0.Add(-10*time.Minute), 5*time.Minute) // from the future
	assert.ErrorIs(t, err, ErrStale)
}

// A sender whose clock is an hour behind signs a timestamp the receiver refuses; a retry
// signs afresh, so it passes even though the event and its ID are unchanged.
func TestWebhookRetrySignsAfresh(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusOK, "")
	sink := sinkFor(t, SinkWebhook, srv.URL)
	ev := failedEvent()

	require.NoError(t, NewSender(WithClock(func() time.Time { return t0.Add(-time.Hour) })).Deliver(context.Background(), sink, ev))
	old := rec.last(t)
	_, err := Verify([]byte(testSecret), old.Header, old.Body, t0, 0)
	assert.ErrorIs(t, err, ErrStale)

	require.NoError(t, NewSender(WithClock(func() time.Time { return t0 })).Deliver(context.Background(), sink, ev))
	fresh := rec.last(t)
	id, err := Verify([]byte(testSecret), fresh.Header, fresh.Body, t0, 0)
	require.NoError(t, err)
	assert.Equal(t, ev.ID, id)
	assert.Equal(t, old.Body, fresh.Body, "the body is the event, the same on every attempt")
}

func TestSlackBody(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusOK, "ok")
	sink := sinkFor(t, SinkSlack, srv.URL+"/services/T0/B0/tok")
	require.NoError(t, NewSender().Deliver(context.Background(), sink, failedEvent()))

	got := rec.last(t)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Empty(t, got.Header.Get(HeaderSignature), "slack deliveries are not signed")
	var msg map[string]any
	require.NoError(t, json.Unmarshal(got.Body, &msg))
	assert.Equal(t, map[string]any{
		"text": "slipway Failed: acme/web (DeploymentFailed, step apply): terraform apply: timeout &lt;waiting&gt; &amp; gave up · <https://git.example.com/mr/7|merge request>",
	}, msg)

	assert.Equal(t, "slipway RolloutBatch: rollout r-9 (Batch2Done): batch 2 of 3 done",
		slackText(Event{ID: "x", Kind: KindRolloutBatch, Rollout: "r-9", State: "Batch2Done", Message: "batch 2\n of 3 done"}))
	assert.Equal(t, "slipway Ready: acme/web (Deployed)",
		slackText(Event{ID: "x", Kind: KindReady, Instance: "acme/web", State: "Deployed"}))
}

func TestStatusClassification(t *testing.T) {
	tests := []struct {
		status    int
		ok        bool
		permanent bool
	}{
		{200, true, false}, {204, true, false}, {202, true, false},
		{301, false, true}, {302, false, true}, {307, false, true},
		{400, false, true}, {401, false, true}, {403, false, true}, {404, false, true}, {410, false, true},
		{408, false, false}, {429, false, false}, {500, false, false}, {502, false, false}, {503, false, false},
	}
	for _, kind := range []SinkKind{SinkWebhook, SinkSlack} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%d", kind, tt.status), func(t *testing.T) {
				rec, srv := newRecorder(t, tt.status, "answer-"+fmt.Sprint(tt.status))
				err := NewSender().Deliver(context.Background(), sinkFor(t, kind, srv.URL+"/hook"), failedEvent())
				if tt.ok {
					assert.NoError(t, err)
					return
				}
				var de *DeliveryError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, "s", de.Sink)
				assert.Equal(t, tt.status, de.Status)
				assert.Equal(t, tt.permanent, de.Permanent)
				assert.Equal(t, tt.permanent, IsPermanent(err))
				assert.Equal(t, !tt.permanent, IsTransient(err))
				assert.Equal(t, "answer-"+fmt.Sprint(tt.status), de.Body)
				assert.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", tt.status))
				assert.NotContains(t, err.Error(), testSecret)
				if tt.status >= 300 && tt.status < 400 {
					assert.Contains(t, err.Error(), "redirects are not followed")
					rec.mu.Lock()
					assert.Len(t, rec.hits, 1, "the redirect was followed")
					rec.mu.Unlock()
				}
			})
		}
	}
}

// A caller's client that follows redirects does not make the Sender follow them.
func TestRedirectNotFollowedWithCustomClient(t *testing.T) {
	rec, srv := newRecorder(t, http.StatusFound, "")
	follows := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	err := NewSender(WithHTTPClient(follows)).Deliver(context.Background(), sinkFor(t, SinkWebhook, srv.URL), failedEvent())
	assert.True(t, IsPermanent(err))
	rec.mu.Lock()
	assert.Len(t, rec.hits, 1)
	rec.mu.Unlock()
	assert.NotNil(t, follows.CheckRedirect, "the caller's client is not modified")
}

func TestErrorBodyTruncated(t *testing.T) {
	_, srv := newRecorder(t, http.StatusBadRequest, strings.Repeat("x", 2000))
	err := NewSender().Deliver(context.Background(), sinkFor(t, SinkWebhook, srv.URL), failedEvent())
	var de *DeliveryError
	require.ErrorAs(t, err, &de)
	assert.Len(t, de.Body, 512)
}

func TestNetworkErrorIsTransient(t *testing.T) {
	_, srv := newRecorder(t, http.StatusOK, "")
	url := srv.URL
	srv.Close()
	for _, kind := range []SinkKind{SinkWebhook, SinkSlack} {
		sink := sinkFor(t, kind, url+"/services/T0/B0/slack-token-in-path?k=query-token")
		err := NewSender().Deliver(context.Background(), sink, failedEvent())
		var de *DeliveryError
		require.ErrorAs(t, err, &de, kind)
		assert.False(t, de.Permanent)
		assert.Zero(t, de.Status)
		assert.True(t, IsTransient(err))
		assert.NotNil(t, errors.Unwrap(err))
		assert.NotContains(t, err.Error(), "query-token")
		assert.NotContains(t, err.Error(), testSecret)
		if kind == SinkSlack {
			assert.NotContains(t, err.Error(), "slack-token-in-path")
		}
	}
}

func TestCancelledIsTransient(t *testing.T) {
	_, srv := newRecorder(t, http.StatusOK, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := NewSender().Deliver(ctx, sinkFor(t, SinkWebhook, srv.URL), failedEvent())
	require.Error(t, err)
	assert.False(t, IsPermanent(err))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	snd := NewSender(WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}))
	err := snd.Deliver(context.Background(), sinkFor(t, SinkWebhook, srv.URL), failedEvent())
	require.Error(t, err)
	assert.True(t, IsTransient(err))
	assert.Equal(t, DefaultTimeout, NewSender().client.Timeout)
}

func TestDeliverRefusesBadInput(t *testing.T) {
	_, srv := newRecorder(t, http.StatusOK, "")
	sink := sinkFor(t, SinkWebhook, srv.URL)
	snd := NewSender()
	ctx := context.Background()

	noID := failedEvent()
	noID.ID = ""
	assert.True(t, IsPermanent(snd.Deliver(ctx, sink, noID)))

	badKind := failedEvent()
	badKind.Kind = "Exploded"
	assert.True(t, IsPermanent(snd.Deliver(ctx, sink, badKind)))

	assert.True(t, IsPermanent(snd.Deliver(ctx, Sink{Name: "x", Kind: "pager"}, failedEvent())))
	// Hand-built sinks have no URL or secret: the config is where those come from.
	assert.True(t, IsPermanent(snd.Deliver(ctx, Sink{Name: "x", Kind: SinkWebhook}, failedEvent())))
	assert.True(t, IsPermanent(snd.Deliver(ctx, Sink{Name: "x", Kind: SinkSlack}, failedEvent())))

	// The zero Sender works, with the defaults.
	var zero Sender
	assert.NoError(t, zero.Deliver(ctx, sink, failedEvent()))
}

func TestIsPermanent(t *testing.T) {
	assert.False(t, IsPermanent(nil))
	assert.False(t, IsTransient(nil))
	assert.False(t, IsPermanent(errors.New("plain")))
	assert.True(t, IsTransient(errors.New("plain")))
	wrapped := fmt.Errorf("activity: %w", &DeliveryError{Sink: "a", Status: 404, Permanent: true})
	assert.True(t, IsPermanent(wrapped))
	assert.Equal(t, "activity: notify sink a: HTTP 404 (permanent)", wrapped.Error())
}
