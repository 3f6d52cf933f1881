package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// commentForge is where each provider's comment payload (testdata/*.json) keeps what slipway reads.
type commentForge struct {
	provider, fixture string
	body, title       string         // dotted paths into the payload
	edited            map[string]any // the fields of an edited comment
	notPR             map[string]any // the fields of a comment on a plain issue
	notPRWhy          string
	mr, url           string // what the fixture's comment is on, and its page
	userID            string // the commenter's user ID in the fixture
}

var commentForges = []commentForge{
	{provider: "github", fixture: "github_issue_comment.json", body: "comment.body", title: "issue.title",
		edited:   map[string]any{"action": "edited", "changes": map[string]any{"body": map[string]any{"from": "lgtm"}}},
		notPR:    map[string]any{"issue.pull_request": nil, "issue.html_url": "https://github.com/acme/gitops/issues/42"},
		notPRWhy: "comment on an issue, not a pull request",
		mr:       "42", url: "https://github.com/acme/gitops/pull/42#issuecomment-1974512345", userID: "583231"},
	{provider: "gitlab", fixture: "gitlab_note_merge_request.json", body: "object_attributes.note", title: "merge_request.title",
		edited:   map[string]any{"object_attributes.action": "update"},
		notPR:    map[string]any{"object_attributes.noteable_type": "Issue", "merge_request": nil, "issue": map[string]any{"iid": 7, "title": "slipway: deploy acme/web"}},
		notPRWhy: "comment on Issue, not a MergeRequest",
		mr:       "7", url: "https://gitlab.example.com/acme/gitops/-/merge_requests/7#note_1244", userID: "17"},
	{provider: "gitea", fixture: "gitea_issue_comment.json", body: "comment.body", title: "issue.title",
		edited:   map[string]any{"action": "edited"},
		notPR:    map[string]any{"is_pull": false, "issue.pull_request": nil, "pull_request": nil},
		notPRWhy: "comment on an issue, not a pull request",
		mr:       "7", url: "https://gitea.example.com/acme/gitops/pulls/7#issuecomment-904", userID: "17"},
}

// fixture reads a testdata payload and sets each dotted path to its value (nil deletes it).
func fixture(t testing.TB, name string, set map[string]any) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	for path, v := range set {
		keys := strings.Split(path, ".")
		m := doc
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			require.True(t, ok, "%s: no object at %s", name, path)
			m = next
		}
		if v == nil {
			delete(m, keys[len(keys)-1])
		} else {
			m[keys[len(keys)-1]] = v
		}
	}
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// commentRequest is a signed comment delivery, with the headers each forge sends.
func commentRequest(provider, delivery string, body []byte) *http.Request {
	if provider == "github" {
		return githubRequest("issue_comment", delivery, body, true)
	}
	r := httptest.NewRequest(http.MethodPost, "/"+provider, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	switch provider {
	case "gitlab":
		r.Header.Set("X-Gitlab-Token", string(gitlabToken))
		r.Header.Set("X-Gitlab-Event", "Note Hook")
		r.Header.Set("X-Gitlab-Event-UUID", delivery)
	case "gitea":
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		r.Header.Set("X-Gitea-Signature", hex.EncodeToString(mac.Sum(nil)))
		r.Header.Set("X-Gitea-Event", "issue_comment")
		r.Header.Set("X-Gitea-Event-Type", "pull_request_comment")
		r.Header.Set("X-Gitea-Delivery", delivery)
	}
	return r
}

func (f commentForge) request(t *testing.T, delivery string, set map[string]any) *http.Request {
	return commentRequest(f.provider, delivery, fixture(t, f.fixture, set))
}

func (f commentForge) withBody(t *testing.T, delivery, body string) *http.Request {
	return f.request(t, delivery, map[string]any{f.body: body})
}

// serveIgnored asserts the delivery is answered 204 with a reason containing want.
func serveIgnored(t *testing.T, s *Server, r *http.Request, want string) {
	t.Helper()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	require.Equal(t, http.StatusNoContent, w.Code, w.Body.String())
	require.Contains(t, w.Header().Get("X-Slipway-Ignored"), want)
}

var webRef = contract.Ref{Tenant: "acme", Name: "web"}

func TestCommentApprovalIsRecordedOnceWithItsCommenter(t *testing.T) {
	for _, f := range commentForges {
		t.Run(f.provider, func(t *testing.T) {
			// Comments carry no branch, so the branch a server watches does not filter them.
			s, rec := newServer(t, Options{Branch: "production"})
			code, resp := serve(s, f.request(t, "a-1", nil))
			require.Equal(t, http.StatusAccepted, code, "%+v", resp)
			require.True(t, resp.Accepted)
			require.Equal(t, 1, resp.Commands)
			require.Empty(t, resp.Refused)
			require.Equal(t, "delivery/"+f.provider+"/a-1", resp.Workflow)
			require.Len(t, rec.calls, 1)
			d := rec.calls[0]
			require.Equal(t, []contract.ApprovalCommand{{Ref: webRef, Verb: contract.VerbApprove, Plan: "3f9a1c2",
				Commenter: "alice", CommenterID: f.userID, MR: f.mr, URL: f.url}}, d.Approvals)
			require.Equal(t, f.userID, d.UserID, "the forge's user ID from the signed payload")
			require.Empty(t, d.Commands)
			require.Nil(t, d.Merge)
			require.Equal(t, f.provider, d.Provider)
			require.Equal(t, "a-1", d.ID)
			require.Equal(t, "alice via "+f.provider+" comment (webhook delivery a-1)", d.Actor, "the commenter the forge names")

			code, resp = serve(s, f.request(t, "a-1", nil))
			require.Equal(t, http.StatusOK, code)
			require.True(t, resp.Duplicate)
			require.Equal(t, "delivery/"+f.provider+"/a-1", resp.Workflow)
			require.Len(t, rec.calls, 1, "a redelivery records nothing")
		})
	}
}

func TestCommentCommands(t *testing.T) {
	cases := []struct {
		name, body string
		want       []contract.ApprovalCommand // nil: refused with 422
		refused    []string
	}{
		{name: "approve without hash", body: "/slipway approve",
			want: []contract.ApprovalCommand{{Verb: contract.VerbApprove}}},
		{name: "reject with reason", body: "Not yet.\n/slipway reject   the plan drops the orders table",
			want: []contract.ApprovalCommand{{Verb: contract.VerbReject, Reason: "the plan drops the orders table"}}},
		{name: "two commands in order", body: "/slipway approve 3f9a1c2d\n\n/slipway reject wrong plan, sorry",
			want: []contract.ApprovalCommand{{Verb: contract.VerbApprove, Plan: "3f9a1c2d"}, {Verb: contract.VerbReject, Reason: "wrong plan, sorry"}}},
		{name: "reject without reason", body: "/slipway reject",
			refused: []string{"line 1: /slipway reject needs a reason"}},
		{name: "unknown verb", body: "hm\n/slipway merge",
			refused: []string{`line 2: "merge" is not a /slipway verb (one of approve, reject)`}},
		{name: "bad hash", body: "/slipway approve main",
			refused: []string{`"main" is not a plan hash`}},
		{name: "good and bad lines", body: "/slipway lgtm\n/slipway approve",
			want:    []contract.ApprovalCommand{{Verb: contract.VerbApprove}},
			refused: []string{`"lgtm" is not a /slipway verb`}},
	}
	for _, f := range commentForges {
		for _, c := range cases {
			t.Run(f.provider+"/"+c.name, func(t *testing.T) {
				s, rec := newServer(t, Options{})
				code, resp := serve(s, f.withBody(t, "c-1", c.body))
				require.Len(t, resp.Refused, len(c.refused), "%+v", resp.Refused)
				for i, want := range c.refused {
					require.Contains(t, resp.Refused[i].Error, want)
					require.Contains(t, resp.Refused[i].Error, "comment by alice on MR "+f.mr)
					require.Equal(t, "acme/web", resp.Refused[i].Instance)
				}
				require.Equal(t, len(c.want), resp.Commands)
				if c.want == nil {
					require.Equal(t, http.StatusUnprocessableEntity, code)
					require.Empty(t, rec.calls, "nothing to carry out, nothing recorded")
					return
				}
				require.Equal(t, http.StatusAccepted, code)
				require.Len(t, rec.calls, 1)
				for i := range c.want {
					c.want[i].Ref, c.want[i].Commenter, c.want[i].MR, c.want[i].URL = webRef, "alice", f.mr, f.url
					c.want[i].CommenterID = f.userID
				}
				require.Equal(t, c.want, rec.calls[0].Approvals)
				require.Len(t, rec.calls[0].Refused, len(c.refused), "refusals are part of the delivery's record")
			})
		}
	}
}

func TestCommentsThatAskNothingAreIgnored(t *testing.T) {
	for _, f := range commentForges {
		t.Run(f.provider, func(t *testing.T) {
			s, rec := newServer(t, Options{})
			serveIgnored(t, s, f.withBody(t, "i-1", "LGTM, but see /slipway approve in the docs\n> /slipway approve"), "comment has no /slipway command")
			serveIgnored(t, s, f.request(t, "i-2", f.edited), "not create")
			serveIgnored(t, s, f.request(t, "i-3", f.notPR), f.notPRWhy)
			serveIgnored(t, s, f.request(t, "i-4", map[string]any{f.title: "Bump the chart to 2.4"}), "not a slipway MR")
			serveIgnored(t, s, f.request(t, "i-5", map[string]any{f.title: "slipway: deploy Acme/web"}), "not a slipway MR")
			require.Empty(t, rec.calls)
		})
	}
}

func TestCommentSignaturesAreChecked(t *testing.T) {
	s, rec := newServer(t, Options{})
	for _, f := range commentForges {
		r := f.request(t, "s-1", nil)
		switch f.provider {
		case "github":
			r.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
		case "gitlab":
			r.Header.Set("X-Gitlab-Token", "guess")
		case "gitea":
			r.Header.Set("X-Gitea-Signature", strings.Repeat("0", 64))
		}
		code, _ := serve(s, r)
		require.Equal(t, http.StatusUnauthorized, code, f.provider)
	}
	unsigned := commentForges[0].request(t, "s-2", nil)
	unsigned.Header.Del("X-Hub-Signature-256")
	code, _ := serve(s, unsigned)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Empty(t, rec.calls)
}

func TestGiteaCommentVariants(t *testing.T) {
	s, rec := newServer(t, Options{})
	f := commentForges[2]
	// Older Gitea and Forgejo payloads may lack is_pull; the pull_request says it all.
	code, _ := serve(s, f.request(t, "v-1", map[string]any{"is_pull": nil, "pull_request": nil}))
	require.Equal(t, http.StatusAccepted, code)
	code, _ = serve(s, f.request(t, "v-2", map[string]any{"comment.user": nil}))
	require.Equal(t, http.StatusAccepted, code)
	require.Equal(t, "alice", rec.calls[1].Approvals[0].Commenter, "the sender wrote a new comment")

	body := fixture(t, f.fixture, nil)
	r := httptest.NewRequest(http.MethodPost, "/forgejo", bytes.NewReader(body))
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	r.Header.Set("X-Forgejo-Signature", hex.EncodeToString(mac.Sum(nil)))
	r.Header.Set("X-Forgejo-Event", "issue_comment")
	r.Header.Set("X-Forgejo-Delivery", "v-3")
	code, _ = serve(s, r)
	require.Equal(t, http.StatusAccepted, code)
	require.Len(t, rec.calls, 3)
	require.Equal(t, "v-3", rec.calls[2].ID)

	serveIgnored(t, s, f.request(t, "v-4", map[string]any{"action": "deleted"}), "comment deleted")
}

func TestGitLabCommentVariants(t *testing.T) {
	s, rec := newServer(t, Options{})
	f := commentForges[1]
	// GitLab before comment edits sent hooks had no action: every note was new.
	code, _ := serve(s, f.request(t, "n-1", map[string]any{"object_attributes.action": nil}))
	require.Equal(t, http.StatusAccepted, code)
	require.Len(t, rec.calls, 1)
	serveIgnored(t, s, f.request(t, "n-2", map[string]any{"object_attributes.system": true}), "system note")
	serveIgnored(t, s, f.request(t, "n-3", map[string]any{"object_attributes.noteable_type": "Commit"}), "comment on Commit")
}

func TestCommentWithoutAuthorIsRefused(t *testing.T) {
	s, rec := newServer(t, Options{})
	code, resp := serve(s, commentForges[0].request(t, "u-1", map[string]any{"comment.user": nil}))
	require.Equal(t, http.StatusUnprocessableEntity, code)
	require.Len(t, resp.Refused, 1)
	require.Contains(t, resp.Refused[0].Error, "no author")
	require.Empty(t, rec.calls)
}
