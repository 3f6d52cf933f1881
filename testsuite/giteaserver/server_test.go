package giteaserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateRepoIsCloneable(t *testing.T) {
	s := Start(t)
	url := s.CreateRepo(t, "cloneme")
	assert.Equal(t, s.URL+"/"+s.AdminUser+"/cloneme.git", url)

	dst := filepath.Join(t.TempDir(), "clone")
	out, err := exec.Command("git", "clone", "--quiet", url, dst).CombinedOutput()
	require.NoError(t, err, "%s", out)
	branch, err := exec.Command("git", "-C", dst, "rev-parse", "--abbrev-ref", "HEAD").Output()
	require.NoError(t, err)
	assert.Equal(t, "main\n", string(branch))
	_, err = os.Stat(filepath.Join(dst, "README.md"))
	assert.NoError(t, err, "auto_init writes an initial commit with a README")

	_, err = s.Server.CreateRepo(context.Background(), "cloneme")
	assert.Error(t, err, "a second repo with the same name must fail")
}

// delivery is one webhook POST as the receiver saw it.
type delivery struct {
	event, signature string
	body             []byte
}

func TestAddWebhookDeliversSignedJSON(t *testing.T) {
	s := Start(t)
	s.CreateRepo(t, "hooked")
	got := make(chan delivery, 16)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivery{event: r.Header.Get("X-Gitea-Event"), signature: r.Header.Get("X-Gitea-Signature"), body: body}
	}))
	defer recv.Close()
	const secret = "s3cret"
	ctx := context.Background()
	require.NoError(t, s.AddWebhook(ctx, "hooked", recv.URL+"/hook", secret))

	c, err := s.Client(ctx)
	require.NoError(t, err)
	hooks, _, err := c.ListRepoHooks(s.AdminUser, "hooked", gitea.ListHooksOptions{})
	require.NoError(t, err)
	require.Len(t, hooks, 1)
	assert.Equal(t, recv.URL+"/hook", hooks[0].Config["url"])
	assert.Equal(t, "json", hooks[0].Config["content_type"])
	assert.True(t, hooks[0].Active)

	// A commit through the API makes Gitea deliver a push event.
	_, _, err = c.CreateFile(s.AdminUser, "hooked", "hello.txt", gitea.CreateFileOptions{
		FileOptions: gitea.FileOptions{Message: "add hello", BranchName: "main"}, Content: "aGVsbG8K"})
	require.NoError(t, err)
	var d delivery
	select {
	case d = <-got:
	case <-time.After(2 * time.Minute): // safety net against a hang, not a timing assertion
		t.Fatal("no webhook delivery")
	}
	assert.Equal(t, "push", d.event)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(d.body)
	assert.Equal(t, hex.EncodeToString(mac.Sum(nil)), d.signature, "the body is signed with the secret")
	var push struct {
		Ref  string `json:"ref"`
		Repo struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	require.NoError(t, json.Unmarshal(d.body, &push))
	assert.Equal(t, "refs/heads/main", push.Ref)
	assert.Equal(t, s.AdminUser+"/hooked", push.Repo.FullName)
}

func TestAddWebhookNamesBadInput(t *testing.T) {
	s := Start(t)
	err := s.AddWebhook(context.Background(), "", "http://127.0.0.1:1/x", "s")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "repo")
	err = s.AddWebhook(context.Background(), "missing-repo", "http://127.0.0.1:1/x", "s")
	assert.Error(t, err, "a hook on a repository that does not exist must fail")
}
