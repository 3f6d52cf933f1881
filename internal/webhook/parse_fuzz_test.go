package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The parsers see attacker-controlled bodies once the signature is right: any
// bytes must give an event or a typed error, never a panic, and planning the event must not panic.
func FuzzParsePayloads(f *testing.F) {
	f.Add("push", []byte(pushBody))
	f.Add("pull_request", []byte(`{"action":"closed","pull_request":{"merged":true,"merge_commit_sha":"m","base":{"ref":"main","sha":"b"},"head":{"ref":"x"}}}`))
	f.Add("push", []byte(`{"ref":1,"commits":"no"}`))
	f.Add("ping", []byte(`{}`))
	for _, name := range []string{"github_issue_comment.json", "gitlab_note_merge_request.json", "gitea_issue_comment.json"} {
		f.Add("issue_comment", fixture(f, name, nil))
	}
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"number":1,"title":"slipway: deploy a/b","pull_request":null},"comment":{"body":"/slipway reject"},"is_pull":true}`))
	f.Add("issue_comment", []byte(`{"object_attributes":{"noteable_type":"MergeRequest","note":"/slipway approve"},"merge_request":{"iid":"1"}}`))
	planner, err := New(Options{Forges: forges()}, &recorder{})
	if err != nil {
		f.Fatal(err)
	}
	defer planner.Close()
	f.Fuzz(func(t *testing.T, kind string, body []byte) {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		sig := hex.EncodeToString(mac.Sum(nil))
		for name, parse := range map[string]parser{"github": parseGitHub, "gitea": parseGitea, "gitlab": parseGitLab} {
			r := httptest.NewRequest(http.MethodPost, "/"+name, bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("X-GitHub-Event", kind)
			r.Header.Set("X-Hub-Signature-256", "sha256="+sig)
			r.Header.Set("X-Gitea-Event", kind)
			r.Header.Set("X-Gitea-Signature", sig)
			r.Header.Set("X-Gitlab-Event", map[string]string{"push": "Push Hook", "pull_request": "Merge Request Hook", "issue_comment": "Note Hook"}[kind])
			key := secret
			if name == "gitlab" {
				key = gitlabToken
			}
			r.Header.Set("X-Gitlab-Token", string(gitlabToken))
			ev, err := parse(r, key)
			var pe *PayloadError
			var se *SignatureError
			switch {
			case err == nil && ev == nil:
				t.Fatalf("%s: no event and no error", name)
			case err != nil && !errors.As(err, &pe) && !errors.As(err, &se):
				t.Fatalf("%s: untyped error %v", name, err)
			case err == nil && ev.Kind == EventComment && ev.Comment == nil:
				t.Fatalf("%s: comment event without its comment", name)
			case err == nil:
				d, resp := planner.plan(ev)
				if d != nil && resp.Commands != len(d.Commands)+len(d.Approvals) {
					t.Fatalf("%s: %d commands answered, %d recorded", name, resp.Commands, len(d.Commands)+len(d.Approvals))
				}
				if len(resp.Refused) > maxRefused+1 {
					t.Fatalf("%s: %d refusals answered, over the bound", name, len(resp.Refused))
				}
			}
		}
	})
}
