package e2e

import (
	"bytes"
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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

// delivered is one request a forge made to the webhook server, and the answer it got.
type delivered struct {
	header http.Header
	body   []byte
	code   int
	resp   webhook.Response
}

// deliveries keeps every request to the webhook server, so a test can find one and replay it.
type deliveries struct {
	mu   sync.Mutex
	all  []delivered
	next http.Handler
}

func (d *deliveries) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	header := r.Header.Clone()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	d.next.ServeHTTP(rec, r)
	var resp webhook.Response
	_ = json.Unmarshal(rec.Body.Bytes(), &resp)
	d.mu.Lock()
	d.all = append(d.all, delivered{header: header, body: body, code: rec.Code, resp: resp})
	d.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// await returns the first delivery whose body holds marker, once the forge has made it.
func (d *deliveries) await(t *testing.T, marker string) delivered {
	t.Helper()
	var got delivered
	require.Eventually(t, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, x := range d.all {
			if bytes.Contains(x.body, []byte(marker)) {
				got = x
				return true
			}
		}
		return false
	}, time.Minute, 100*time.Millisecond, "the forge delivers the push marked %q", marker)
	return got
}

// outcomes waits for a delivery's record to finish and returns what became of each command.
func outcomes(t *testing.T, e *testsuite.Env, workflowID string) []contract.DeliveryOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var res contract.DeliveryResult
	// The record is its batch's child: it exists once a worker has run the batch.
	require.Eventually(t, func() bool {
		_, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
		return err == nil
	}, time.Minute, 100*time.Millisecond, "%s is filed", workflowID)
	require.NoError(t, e.Client.Temporal.GetWorkflow(ctx, workflowID, "").Get(ctx, &res), workflowID)
	return res.Outcomes
}

// pushAs commits files to main of the repository at url with author as the commit's author, as a
// tenant's push does, and returns the commit.
func pushAs(t *testing.T, url, author, email, message string, files map[string][]byte) string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+email,
			"GIT_COMMITTER_NAME="+author, "GIT_COMMITTER_EMAIL="+email)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git(filepath.Dir(clone), "clone", "-q", "--branch", "main", url, clone)
	for p, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(clone, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(clone, p), data, 0o644))
		git(clone, "add", p)
	}
	git(clone, "commit", "-q", "-m", message)
	git(clone, "push", "-q", "origin", "main")
	return git(clone, "rev-parse", "HEAD")
}

func instanceFile(greeting string) []byte {
	return []byte("stack: example\nparameters:\n  greeting: " + greeting + "\n")
}

// Cases 1 and 7 on a real Gitea, with Gitea's own deliveries: the same hook on the GitOps
// repository and on another repository of the same owner (as an org-level hook is).
//   - A destroy line pushed to the other repository starts nothing; its record says ignored, and why.
//   - A destroy line pushed to the GitOps repository is refused: destructive commit lines are off.
//   - The operation records the user Gitea says pushed, and the commit's author.
//   - Gitea's signed delivery of an old deploy, replayed under a new delivery ID after a newer
//     deploy, starts nothing and does not roll the instance back.
func TestGiteaWebhookIsScopedAndReplayProof(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	ctx := context.Background()
	gs, push := giteaGitOps(t, nil)
	playground := strings.Replace(gs.CreateRepo(t, "playground"), "://", "://"+gs.AdminUser+":"+gs.Token+"@", 1)
	testsuite.PushFiles(t, playground, "a scratch repository", map[string][]byte{"README.md": []byte("scratch\n")})
	secret := "confinement-gitea-secret"
	got := &deliveries{}
	e, hookURL := giteaWebhookEnv(t, gs, secret, func(h http.Handler) http.Handler { got.next = h; return got })
	require.NoError(t, gs.AddWebhook(ctx, "playground", hookURL+"/gitea", secret))
	const ref = "acme/web"

	// The tenant creates its instance from a commit line; the record names Gitea's pusher and the author.
	pushAs(t, push, "Bob Tenant", "bob@tenant.test", "web v1 [mark-create]\n\n[slipway][create] "+ref,
		map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("v1")})
	created := got.await(t, "mark-create")
	require.Equal(t, http.StatusAccepted, created.code, "%+v", created.resp)
	waitState(t, e, ref, lifecycle.ConfigurationCreated)
	actor := e.Status(ref).Operation.Note
	require.Contains(t, actor, gs.AdminUser+" via gitea push", "the user Gitea says pushed")
	require.Contains(t, actor, "author Bob Tenant <bob@tenant.test>", "and the commit's author")
	t.Logf("recorded actor: %s", actor)

	// Case 1: a destroy line pushed to another repository behind the same hook.
	pushAs(t, playground, "Mallory", "mallory@evil.test", "cleanup [mark-foreign]\n\n[slipway][destroy] "+ref,
		map[string][]byte{"notes.txt": []byte("x\n")})
	foreign := got.await(t, "mark-foreign")
	require.Equal(t, http.StatusAccepted, foreign.code, "recorded, to show the attempt")
	require.Contains(t, foreign.resp.Ignored, `repository "`+gs.AdminUser+`/playground" is not allowed for gitea webhooks`)
	out := outcomes(t, e, foreign.resp.Workflow)
	require.Len(t, out, 1)
	require.False(t, out[0].Started)
	require.Contains(t, out[0].Error, "ignored: repository")

	// Case 1: the same line in the GitOps repository is refused: destroy from a commit is off.
	pushAs(t, push, "Mallory", "mallory@evil.test", "tidy [mark-destroy]\n\n[slipway][destroy] "+ref,
		map[string][]byte{"notes.txt": []byte("y\n")})
	destroy := got.await(t, "mark-destroy")
	require.Equal(t, http.StatusAccepted, destroy.code)
	require.Zero(t, destroy.resp.Commands)
	out = outcomes(t, e, destroy.resp.Workflow)
	require.Len(t, out, 1)
	require.Contains(t, out[0].Error, "destroy from a commit message is off")
	st := e.Status(ref)
	require.Equal(t, lifecycle.ConfigurationCreated, st.State, "nothing destroyed")
	require.Empty(t, st.History, "no operation but the create")

	// Two deploys from commit lines, then Gitea's delivery of the first replayed under a new ID.
	pushAs(t, push, "Bob Tenant", "bob@tenant.test", "web v2 [mark-v2]\n\n[slipway][deploy] "+ref,
		map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("v2")})
	v2 := got.await(t, "mark-v2")
	require.Equal(t, http.StatusAccepted, v2.code)
	waitDone(t, e, ref, 2)
	pushAs(t, push, "Bob Tenant", "bob@tenant.test", "web v3 [mark-v3]\n\n[slipway][deploy] "+ref,
		map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("v3")})
	v3 := got.await(t, "mark-v3")
	require.Equal(t, http.StatusAccepted, v3.code)
	waitDone(t, e, ref, 3)
	require.Equal(t, lifecycle.Deployed, e.Status(ref).State)

	header := v2.header.Clone()
	header.Set("X-Gitea-Delivery", "replayed-"+header.Get("X-Gitea-Delivery"))
	req, err := http.NewRequest(http.MethodPost, hookURL+"/gitea", bytes.NewReader(v2.body))
	require.NoError(t, err)
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var replay webhook.Response
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&replay))
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "a new delivery ID is a new record: %+v", replay)
	out = outcomes(t, e, replay.Workflow)
	require.Len(t, out, 1)
	require.False(t, out[0].Started, "%+v", out[0])
	require.Contains(t, out[0].Error, "is older than what main holds for acme/web")
	t.Logf("replayed v2 deploy: %s", out[0].Error)
	st = e.Status(ref)
	require.Len(t, st.History, 2, "still three operations: the replay started none")
	require.Equal(t, lifecycle.Deployed, st.State)
	cfg, err := e.Activities.Forge.ReadDir(ctx, "", "instances/acme/web")
	require.NoError(t, err)
	require.Contains(t, string(cfg["instance.yaml"]), "greeting: v3", "main still holds v3: no rollback")
}

// waitDone waits until ref has run n operations and the last has ended.
func waitDone(t *testing.T, e *testsuite.Env, ref string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.Operation != nil && len(st.History)+1 == n && st.Operation.Result != contract.ResultRunning
	}, 3*time.Minute, 250*time.Millisecond, "%s runs operation %d to its end", ref, n)
	st := e.Status(ref)
	require.Equal(t, contract.ResultSucceeded, st.Operation.Result, "%+v", st.Failure)
}

// seedExample is the example stack's files under stacks/example/.
func seedExample(t *testing.T) map[string][]byte {
	stack, err := examples.StackFiles("example")
	require.NoError(t, err)
	seed := map[string][]byte{}
	for p, d := range stack {
		seed["stacks/example/"+p] = d
	}
	return seed
}

// forgeHook sends deliveries as GitHub or GitLab would: their documented headers and payload fields.
type forgeHook struct {
	t        *testing.T
	url      string // the webhook server's endpoint
	provider string // github or gitlab
	key      []byte // what signs (GitHub) or authenticates (GitLab) the delivery
}

// pushEvent is a push of one commit to main of repo by user, in the forge's payload format.
func (f forgeHook) pushEvent(repo, user, sha, author, email, message string) []byte {
	commit := map[string]any{"id": sha, "message": message, "author": map[string]any{"name": author, "email": email, "username": strings.ToLower(author)}}
	var p map[string]any
	if f.provider == "github" {
		p = map[string]any{"ref": "refs/heads/main", "after": sha, "repository": map[string]any{"full_name": repo},
			"pusher": map[string]any{"name": user}, "sender": map[string]any{"login": user}, "commits": []any{commit}}
	} else {
		p = map[string]any{"object_kind": "push", "ref": "refs/heads/main", "after": sha, "user_username": user,
			"project": map[string]any{"path_with_namespace": repo}, "commits": []any{commit}}
	}
	body, err := json.Marshal(p)
	require.NoError(f.t, err)
	return body
}

// deliveryRuns suffixes a test's delivery IDs with one of its own: the package's tests share a
// dev server, where a delivery ID is recorded once, so a second test's "create-1" was a duplicate.
var deliveryRuns sync.Map

func (f forgeHook) send(delivery string, body []byte) (int, webhook.Response) {
	run, _ := deliveryRuns.LoadOrStore(f.t, uuid.NewString()[:8])
	delivery += "-" + run.(string)
	req, err := http.NewRequest(http.MethodPost, f.url, bytes.NewReader(body))
	require.NoError(f.t, err)
	req.Header.Set("Content-Type", "application/json")
	if f.provider == "github" {
		mac := hmac.New(sha256.New, f.key)
		mac.Write(body)
		req.Header.Set("X-GitHub-Event", "push")
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	} else {
		req.Header.Set("X-Gitlab-Event", "Push Hook")
		req.Header.Set("X-Gitlab-Event-UUID", delivery)
		req.Header.Set("X-Gitlab-Token", string(f.key))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	var r webhook.Response
	_ = json.NewDecoder(resp.Body).Decode(&r)
	return resp.StatusCode, r
}

// Cases 1 and 7 on the GitHub and GitLab fakes as the GitOps repository, with deliveries in each
// forge's documented format: a command from another repository starts nothing and is recorded
// ignored; a destroy line is refused by default; the actor is the forge's user plus the author; a
// create replayed under a new delivery ID once main moved past its commit starts nothing; and
// each endpoint refuses the other's secret (/gitlab refuses the GitHub secret as its token).
func TestForgeFakeWebhooksAreScopedAndReplayProof(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	githubSecret, gitlabToken := []byte("github-hmac-secret"), []byte("gitlab-plain-token")
	for _, provider := range []string{"github", "gitlab"} {
		t.Run(provider, func(t *testing.T) {
			var fg workerapp.Forge
			var commit func(message string, files map[string][]byte) string
			switch provider {
			case "github":
				fake := fakegithub.New(t)
				fake.AddRepo("acme", "gitops", "main")
				commit = func(msg string, files map[string][]byte) string {
					return fake.CommitFiles("acme", "gitops", "main", msg, files)
				}
				fg = workerapp.Forge{Kind: "github", URL: fake.URL, Repo: "acme/gitops", Token: fake.Token}
			case "gitlab":
				fake := fakegitlab.New(fakegitlab.WithProject("acme/gitops"))
				t.Cleanup(fake.Close)
				commit = func(msg string, files map[string][]byte) string { return fake.Push("main", msg, files) }
				fg = workerapp.Forge{Kind: "gitlab", URL: fake.URL, Repo: "acme/gitops", Token: fake.Token}
			}
			commit("the example stack", seedExample(t))
			e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.Forge = fg })
			h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{
				"github": {Secret: githubSecret, Repos: []string{"acme/gitops"}},
				"gitlab": {Secret: gitlabToken, Repos: []string{"acme/gitops"}}}}, e.Client)
			require.NoError(t, err)
			t.Cleanup(h.Close)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			hook := forgeHook{t: t, url: srv.URL + "/" + provider, provider: provider, key: githubSecret}
			other := forgeHook{t: t, url: srv.URL + "/" + provider, provider: provider, key: gitlabToken}
			if provider == "gitlab" {
				hook, other = other, hook
			}
			const ref = "acme/web"

			sha := commit("web v1", map[string][]byte{"instances/acme/web/instance.yaml": instanceFile("v1")})
			create := hook.pushEvent("acme/gitops", "bob", sha, "Bob Tenant", "bob@tenant.test", "web v1\n\n[slipway][create] "+ref)
			code, resp := hook.send("create-1", create)
			require.Equal(t, http.StatusAccepted, code, "%+v", resp)
			waitState(t, e, ref, lifecycle.ConfigurationCreated)
			actor := e.Status(ref).Operation.Note
			require.Contains(t, actor, "bob via "+provider+" push")
			require.Contains(t, actor, "author Bob Tenant <bob@tenant.test>")

			// Each endpoint takes only its own secret: /gitlab refuses the GitHub secret as its token.
			code, _ = other.send("cross-1", create)
			require.Equal(t, http.StatusUnauthorized, code, "the other forge's secret is refused")

			// A destroy line from another repository of the organisation: ignored, recorded.
			code, resp = hook.send("foreign-1", hook.pushEvent("acme/playground", "mallory", sha, "Mallory", "m@evil.test", "[slipway][destroy] "+ref))
			require.Equal(t, http.StatusAccepted, code)
			require.Contains(t, resp.Ignored, `repository "acme/playground" is not allowed for `+provider+" webhooks")
			out := outcomes(t, e, resp.Workflow)
			require.Len(t, out, 1)
			require.Contains(t, out[0].Error, "ignored: repository")

			// A destroy line from the GitOps repository: refused, destructive commit lines are off.
			code, resp = hook.send("destroy-1", hook.pushEvent("acme/gitops", "mallory", sha, "Mallory", "m@evil.test", "[slipway][destroy] "+ref))
			require.Equal(t, http.StatusAccepted, code)
			out = outcomes(t, e, resp.Workflow)
			require.Len(t, out, 1)
			require.Contains(t, out[0].Error, "destroy from a commit message is off")

			// The create's signed body replayed under a new delivery ID, after its merge moved main.
			code, resp = hook.send("create-1-replayed", create)
			require.Equal(t, http.StatusAccepted, code)
			out = outcomes(t, e, resp.Workflow)
			require.Len(t, out, 1)
			require.False(t, out[0].Started)
			require.Contains(t, out[0].Error, "is older than what main holds for acme/web")

			st := e.Status(ref)
			require.Equal(t, lifecycle.ConfigurationCreated, st.State)
			require.Empty(t, st.History, "one operation: the create; nothing else started")
		})
	}
}

// Case 10 on a real Temporal: a 0.9 MB push with one valid command and a malformed one on every
// other line, batched with an innocent delivery. Both are recorded and carried out; the huge one's
// answer and record are bounded (they were 6.9 MB, which Temporal refused, failing the batch).
func TestAHugePushIsBoundedAndItsBatchmateRuns(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	ctx := context.Background()
	e := testsuite.NewEnv(t)
	cfg := instanceFile("hello")
	testsuite.PushFiles(t, e.GitOpsRepo, "two instances", map[string][]byte{
		"instances/big/a/instance.yaml": cfg, "instances/big/b/instance.yaml": cfg})
	rev, err := e.Activities.Forge.Head(ctx)
	require.NoError(t, err)
	secret := []byte("bounded-secret")
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: secret, Repos: []string{"big/gitops"}}},
		BatchWindow: time.Second, BatchMax: 2}, e.Client)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	hook := forgeHook{t: t, url: srv.URL + "/github", provider: "github", key: secret}

	var msg strings.Builder
	msg.WriteString("[slipway][create] big/a\n")
	for msg.Len() < 900_000 {
		msg.WriteString("[slipway][" + strings.Repeat("z", 200) + "] big/x\n")
	}
	huge := hook.pushEvent("big/gitops", "bob", rev, "Bob", "bob@example.test", msg.String())
	innocent := hook.pushEvent("big/gitops", "carol", rev, "Carol", "carol@example.test", "[slipway][create] big/b")
	type answer struct {
		code int
		size int
		resp webhook.Response
	}
	answers := make([]answer, 2)
	var wg sync.WaitGroup
	for i, body := range [][]byte{huge, innocent} {
		wg.Add(1)
		go func(i int, body []byte) {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, hook.url, bytes.NewReader(body))
			require.NoError(t, err)
			mac := hmac.New(sha256.New, secret)
			mac.Write(body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "push")
			req.Header.Set("X-GitHub-Delivery", []string{"huge-1", "innocent-1"}[i])
			req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			answers[i] = answer{code: resp.StatusCode, size: len(raw)}
			_ = json.Unmarshal(raw, &answers[i].resp)
		}(i, body)
	}
	wg.Wait()
	require.Greater(t, len(huge), 900_000)
	require.Equal(t, http.StatusAccepted, answers[0].code, "the huge push is recorded: %+v", answers[0].resp.Error)
	require.Equal(t, http.StatusAccepted, answers[1].code, "and so is the innocent one batched with it")
	require.Less(t, answers[0].size, 16<<10, "the 202 body is bounded")
	require.Equal(t, 1, answers[0].resp.Commands)

	waitState(t, e, "big/a", lifecycle.ConfigurationCreated)
	waitState(t, e, "big/b", lifecycle.ConfigurationCreated)
	out := outcomes(t, e, answers[0].resp.Workflow)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	require.LessOrEqual(t, len(out), 22, "20 refusals, the count of the rest, and the command")
	require.Less(t, len(raw), 16<<10, "the record is bounded")
	started := 0
	for _, o := range out {
		if o.Started {
			started++
		}
	}
	require.Equal(t, 1, started)
	require.True(t, outcomes(t, e, answers[1].resp.Workflow)[0].Started)
	t.Logf("a %d-byte push: a %d-byte answer, a record of %d outcomes (%d bytes)", len(huge), answers[0].size, len(out), len(raw))
}
