package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func pushAdding(repo, message string, added ...string) []byte {
	body, _ := json.Marshal(map[string]any{"ref": "refs/heads/main", "after": "feedface", "repository": map[string]any{"full_name": repo},
		"project": map[string]any{"path_with_namespace": repo}, "sender": map[string]any{"login": "bob"},
		"user_username": "bob", "commits": []map[string]any{{"id": "c0ffee", "message": message, "added": added}}})
	return body
}

// Grove's local create: a push to main adding an instance file, with no command line, is a
// provision that adopts the push's head commit; a pushed merge of a pull request (slipway's own
// MRs among them) is the merge event's, and a bad path is refused naming it.
func TestAPushAddingAnInstanceFileIsALocalCreate(t *testing.T) {
	for _, path := range []string{"/github", "/gitea", "/gitlab"} {
		t.Run(path, func(t *testing.T) {
			key := secret
			if path == "/gitlab" {
				key = gitlabToken
			}
			s, rec := newServer(t, Options{})
			code, resp := serve(s, signed(path, "push", "l-1", key, pushAdding("acme/gitops", "add web",
				"instances/acme/web/instance.yaml", "instances/acme/web/notes.md", "README.md")))
			require.Equal(t, http.StatusAccepted, code, "%+v", resp)
			require.Equal(t, 1, resp.Commands)
			c := rec.calls[0].Commands[0]
			require.True(t, c.Adopt)
			require.Equal(t, string(lifecycle.OpProvision), c.Operation)
			require.Equal(t, "acme/web", c.Ref.String())
			require.Equal(t, "feedface", c.Rev, "pinned at the push's head")

			for i, msg := range []string{
				"Merge pull request 'slipway: provision acme/db' (#3) from slipway/acme/db/provision-1 into main",
				"Merge pull request #7 from tenant/add-db",
				"Merge branch 'add-db' into 'main'\n\nSee merge request acme/gitops!4",
			} {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, signed(path, "push", "l-m"+string(rune('0'+i)), key, pushAdding("acme/gitops", msg, "instances/acme/db/instance.yaml")))
				require.Equal(t, http.StatusNoContent, w.Code, "a merged request's push is the merge event's: %q", msg)
			}
			require.Len(t, rec.calls, 1)

			code, resp = serve(s, signed(path, "push", "l-2", key, pushAdding("acme/gitops", "explicit\n\n[slipway][create] acme/api",
				"instances/acme/api/instance.yaml")))
			require.Equal(t, http.StatusAccepted, code)
			require.Equal(t, 1, resp.Commands, "the command line is the one request")
			require.False(t, rec.calls[1].Commands[0].Adopt)

			code, resp = serve(s, signed(path, "push", "l-3", key, pushAdding("acme/gitops", "bad", "instances/Acme_Corp/web/instance.yaml")))
			require.Equal(t, http.StatusUnprocessableEntity, code, "refused, as a malformed command line is: %+v", resp)
			require.Len(t, resp.Refused, 1)
			require.Contains(t, resp.Refused[0].Error, "instances/Acme_Corp/web/instance.yaml")

			off, _ := newServer(t, Options{CommitOps: []lifecycle.Operation{lifecycle.OpDeploy}})
			code, resp = serve(off, signed(path, "push", "l-4", key, pushAdding("acme/gitops", "add", "instances/acme/web/instance.yaml")))
			require.Equal(t, http.StatusAccepted, code, "recorded, so the attempt shows")
			require.Zero(t, resp.Commands)
			require.Contains(t, resp.Refused[0].Error, "create from a push is off")
		})
	}
}
