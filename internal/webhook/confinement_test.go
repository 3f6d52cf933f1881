package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// signed builds a delivery to path signed as that forge signs it, with key.
func signed(path, event, delivery string, key, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	sig := hex.EncodeToString(mac.Sum(nil))
	switch path {
	case "/github":
		r.Header.Set("X-GitHub-Event", event)
		r.Header.Set("X-GitHub-Delivery", delivery)
		r.Header.Set("X-Hub-Signature-256", "sha256="+sig)
	case "/gitea":
		r.Header.Set("X-Gitea-Event", event)
		r.Header.Set("X-Gitea-Delivery", delivery)
		r.Header.Set("X-Gitea-Signature", sig)
	case "/gitlab":
		r.Header.Set("X-Gitlab-Event", map[string]string{"push": "Push Hook"}[event])
		r.Header.Set("X-Gitlab-Event-UUID", delivery)
		r.Header.Set("X-Gitlab-Token", string(key))
	}
	return r
}

func push(repo, message string) []byte {
	body, _ := json.Marshal(map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"full_name": repo},
		"project": map[string]any{"path_with_namespace": repo}, "sender": map[string]any{"login": "mallory"},
		"user_username": "mallory", "commits": []map[string]any{{"id": "c0ffee", "message": message}}})
	return body
}

// Case 1: a destroy line pushed to another repository of the organisation (an org-level hook)
// starts nothing on any forge; it is recorded as ignored, with the reason, for `slipway events`.
func TestDeliveryFromAnotherRepositoryStartsNothing(t *testing.T) {
	for _, path := range []string{"/github", "/gitea", "/gitlab"} {
		t.Run(path, func(t *testing.T) {
			s, rec := newServer(t, Options{CommitOps: []lifecycle.Operation{lifecycle.OpDestroy, lifecycle.OpDeploy}})
			key := secret
			if path == "/gitlab" {
				key = gitlabToken
			}
			code, resp := serve(s, signed(path, "push", "x-1", key, push("acme/playground", "[slipway][destroy] othertenant/prod-db")))
			require.Equal(t, http.StatusAccepted, code)
			require.Zero(t, resp.Commands)
			require.Contains(t, resp.Ignored, `repository "acme/playground" is not allowed`)
			require.Len(t, rec.calls, 1, "recorded, so the attempt shows in slipway events")
			d := rec.calls[0]
			require.Empty(t, d.Commands, "nothing to start")
			require.Len(t, d.Refused, 1)
			require.Contains(t, d.Refused[0].Error, "ignored: repository \"acme/playground\" is not allowed for "+strings.TrimPrefix(path, "/"))
			require.Contains(t, d.Refused[0].Error, "allowed: acme/gitops")

			// One without slipway lines is answered and not recorded: an org hook's every push is not a record.
			w := httptest.NewRecorder()
			s.ServeHTTP(w, signed(path, "push", "x-2", key, push("acme/playground", "fix typo")))
			require.Equal(t, http.StatusNoContent, w.Code)
			require.Contains(t, w.Header().Get("X-Slipway-Ignored"), "not allowed")
			require.Len(t, rec.calls, 1)

			// The allowed repository, in any case, is taken.
			code, resp = serve(s, signed(path, "push", "x-3", key, push("Acme/GitOps", "[slipway][deploy] acme/web")))
			require.Equal(t, http.StatusAccepted, code, "%+v", resp)
			require.Equal(t, 1, resp.Commands)
		})
	}
}

// Case 1: archive, destroy and deprovision lines from the allowed repository are refused (and
// recorded refused, with the reason) unless the operator names them.
func TestDestructiveCommitLinesAreOffByDefault(t *testing.T) {
	s, rec := newServer(t, Options{})
	msg := "[slipway][destroy] othertenant/prod-db\n[slipway][archive] othertenant/prod-db\n[slipway][deprovision] othertenant/prod-db\n[slipway][deploy] acme/web"
	code, resp := serve(s, signed("/github", "push", "o-1", secret, push("acme/gitops", msg)))
	require.Equal(t, http.StatusAccepted, code)
	require.Equal(t, 1, resp.Commands, "only the deploy")
	require.Len(t, resp.Refused, 3)
	for i, op := range []string{"destroy", "archive", "deprovision"} {
		require.Equal(t, op, resp.Refused[i].Operation)
		require.Contains(t, resp.Refused[i].Error, op+" from a commit message is off (the operator allows it with --commit-ops)")
	}
	require.Len(t, rec.calls[0].Refused, 3, "the refusals are the record's outcomes")
	require.Equal(t, "deploy", rec.calls[0].Commands[0].Operation)

	on, rec2 := newServer(t, Options{CommitOps: []lifecycle.Operation{lifecycle.OpDestroy}})
	code, resp = serve(on, signed("/github", "push", "o-2", secret, push("acme/gitops", msg)))
	require.Equal(t, http.StatusAccepted, code)
	require.Equal(t, 1, resp.Commands, "the operator turned destroy on, and only destroy")
	require.Equal(t, "destroy", rec2.calls[0].Commands[0].Operation)
}

// Case 7: one secret no longer serves every endpoint: /gitlab refuses the GitHub secret as its
// token, and /github refuses a body signed with GitLab's token.
func TestEachForgeHasItsOwnSecret(t *testing.T) {
	s, rec := newServer(t, Options{})
	body := push("acme/gitops", "[slipway][deploy] acme/web")
	code, resp := serve(s, signed("/gitlab", "push", "k-1", secret, body))
	require.Equal(t, http.StatusUnauthorized, code, "the GitHub secret is not GitLab's token")
	require.NotContains(t, resp.Error, string(secret))
	code, _ = serve(s, signed("/github", "push", "k-2", gitlabToken, body))
	require.Equal(t, http.StatusUnauthorized, code)
	require.Empty(t, rec.calls)

	only, _ := newServer(t, Options{Forges: map[string]ForgeOptions{"github": {Secret: secret, Repos: []string{"acme/gitops"}}}})
	w := httptest.NewRecorder()
	only.ServeHTTP(w, signed("/gitea", "push", "k-3", secret, body))
	require.Equal(t, http.StatusNotFound, w.Code, "a forge without its own secret is not served")
}

// watchedBody says whether a handler read the body.
type watchedBody struct {
	r    *bytes.Reader
	read bool
}

func (b *watchedBody) Read(p []byte) (int, error) { b.read = true; return b.r.Read(p) }
func (b *watchedBody) Close() error               { return nil }

// A missing or malformed signature, or a wrong GitLab token, is refused before the body is read.
func TestSignatureHeadersAreCheckedBeforeTheBody(t *testing.T) {
	s, _ := newServer(t, Options{})
	body := push("acme/gitops", "[slipway][deploy] acme/web")
	for name, req := range map[string]func() *http.Request{
		"github without": func() *http.Request {
			r := signed("/github", "push", "h", secret, body)
			r.Header.Del("X-Hub-Signature-256")
			return r
		},
		"github malformed": func() *http.Request {
			r := signed("/github", "push", "h", secret, body)
			r.Header.Set("X-Hub-Signature-256", "sha256=zz")
			return r
		},
		"github short": func() *http.Request {
			r := signed("/github", "push", "h", secret, body)
			r.Header.Set("X-Hub-Signature-256", "sha256=abcd")
			return r
		},
		"gitea without": func() *http.Request {
			r := signed("/gitea", "push", "h", secret, body)
			r.Header.Del("X-Gitea-Signature")
			return r
		},
		"gitea malformed": func() *http.Request {
			r := signed("/gitea", "push", "h", secret, body)
			r.Header.Set("X-Gitea-Signature", "nothex")
			return r
		},
		"gitlab wrong": func() *http.Request { return signed("/gitlab", "push", "h", []byte("guess"), body) },
	} {
		r := req()
		wb := &watchedBody{r: bytes.NewReader(body)}
		r.Body = wb
		code, err := s.Admit(r)
		require.Equal(t, http.StatusUnauthorized, code, name)
		require.Error(t, err, "%s: the server refuses it before it reads the body", name)
		code, _ = serve(s, r)
		require.Equal(t, http.StatusUnauthorized, code, name)
		require.False(t, wb.read, "%s: refused before the body was read", name)
	}
	for _, r := range []*http.Request{signed("/github", "push", "h", secret, body), signed("/gitlab", "push", "h", gitlabToken, body)} {
		code, err := s.Admit(r)
		require.NoError(t, err, "well-formed headers are admitted; the body's signature is checked as it is read")
		require.Zero(t, code)
	}
	only, _ := newServer(t, Options{Forges: map[string]ForgeOptions{"github": {Secret: secret, Repos: []string{"acme/gitops"}}}})
	code, _ := only.Admit(signed("/gitea", "push", "h", secret, body))
	require.Equal(t, http.StatusNotFound, code, "an unserved forge")
	code, _ = only.Admit(httptest.NewRequest(http.MethodPost, "/bitbucket", nil))
	require.Equal(t, http.StatusNotFound, code)
	code, _ = only.Admit(httptest.NewRequest(http.MethodGet, "/github", nil))
	require.Equal(t, http.StatusMethodNotAllowed, code)
}

var _ httpserve.Admitter = (*Server)(nil)

// Case 10: a 0.9 MB push with one valid command and a malformed command on every other line. The
// record and the 202 body stay small (refusals bounded in count and bytes), where they once were
// 6.9 MB and refused by Temporal.
func TestAHugePushMakesABoundedRecordAndAnswer(t *testing.T) {
	s, rec := newServer(t, Options{MaxBody: 2 << 20})
	var msg strings.Builder
	msg.WriteString("[slipway][deploy] acme/web\n")
	for msg.Len() < 900_000 {
		fmt.Fprintf(&msg, "[slipway][%s] acme/x\n", strings.Repeat("z", 200))
	}
	body := push("acme/gitops", msg.String())
	require.Greater(t, len(body), 900_000)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, signed("/github", "push", "big-1", secret, body))
	require.Equal(t, http.StatusAccepted, w.Code)
	require.Less(t, w.Body.Len(), 16<<10, "the 202 body is bounded")
	var resp Response
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	require.Equal(t, 1, resp.Commands)
	require.Len(t, resp.Refused, maxRefused+1)
	require.Regexp(t, `^\d+ more refused \(not listed\)$`, resp.Refused[maxRefused].Error)
	raw, err := json.Marshal(rec.calls[0])
	require.NoError(t, err)
	require.Less(t, len(raw), 16<<10, "the record is bounded")
	t.Logf("a %d-byte push: a %d-byte record and a %d-byte answer", len(body), len(raw), w.Body.Len())
}

// picky refuses any batch that holds a delivery named bad, as Temporal refuses an input over its limit.
type picky struct {
	mu      sync.Mutex
	bad     string
	batches [][]string
	filed   []string
}

func (p *picky) RecordDeliveries(_ context.Context, ds []contract.Delivery) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	p.batches = append(p.batches, ids)
	for _, d := range ds {
		if d.ID == p.bad {
			return errors.New("rpc error: code = InvalidArgument desc = Blob data size exceeds limit")
		}
	}
	p.filed = append(p.filed, ids...)
	return nil
}

// Case 10: a delivery Temporal refuses fails alone: the innocent one it was batched with is recorded.
func TestADeliveryThatCannotBeRecordedFailsAlone(t *testing.T) {
	rec := &picky{bad: "bad-1"}
	s, err := New(Options{Forges: forges(), BatchWindow: 300 * time.Millisecond, BatchMax: 2}, rec)
	require.NoError(t, err)
	defer s.Close()
	codes := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range []string{"bad-1", "good-1"} {
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			code, _ := serve(s, signed("/github", "push", id, secret, push("acme/gitops", "[slipway][deploy] acme/"+strings.TrimSuffix(id, "-1"))))
			mu.Lock()
			codes[id] = code
			mu.Unlock()
		}(id)
	}
	wg.Wait()
	require.Equal(t, 2, len(rec.batches[0]), "both arrived in one batch: %v", rec.batches)
	require.Equal(t, http.StatusServiceUnavailable, codes["bad-1"])
	require.Equal(t, http.StatusAccepted, codes["good-1"], "the innocent delivery is recorded")
	require.Equal(t, []string{"good-1"}, rec.filed)
}

// A delivery ID is a caller's header: an overlong one is refused rather than made a workflow ID.
func TestOverlongDeliveryIDIsRefused(t *testing.T) {
	s, rec := newServer(t, Options{})
	code, _ := serve(s, signed("/github", "push", strings.Repeat("d", 200), secret, push("acme/gitops", "[slipway][deploy] acme/web")))
	require.Equal(t, http.StatusBadRequest, code)
	require.Empty(t, rec.calls)
}

// A commit ID keys a request and names a revision: one that is not a SHA is refused, not recorded.
func TestCommandOfANonSHACommitIsRefused(t *testing.T) {
	s, rec := newServer(t, Options{})
	body, _ := json.Marshal(map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"full_name": "acme/gitops"},
		"commits": []map[string]any{{"id": strings.Repeat("x", 5000), "message": "[slipway][deploy] acme/web"}}})
	code, resp := serve(s, signed("/github", "push", "sha-1", secret, body))
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Len(t, resp.Refused, 1)
	require.Contains(t, resp.Refused[0].Error, "not a commit ID")
	require.Less(t, len(resp.Refused[0].Error), maxRefusalBytes+1)
	require.Empty(t, rec.calls)
}
