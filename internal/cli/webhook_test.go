package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// With Temporal unreachable, `webhook serve` still starts, and answers a signed delivery
// 503 with Retry-After, so the forge keeps it for a redelivery instead of losing it.
func TestWebhookServeAnswers503WhileTemporalIsDown(t *testing.T) {
	testKeys(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	t.Setenv("TEMPORAL_ADDRESS", dead)
	t.Setenv("SLIPWAY_WEBHOOK_GITHUB_SECRET", "s3cret")
	t.Setenv("SLIPWAY_FORGE", "github")
	t.Setenv("SLIPWAY_FORGE_REPO", "acme/gitops")

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"webhook", "serve", "--listen", "127.0.0.1:0", "--record-timeout", "300ms"},
			Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	var url string
	for url == "" && sc.Scan() {
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.NotEmpty(t, url, "stderr: %s", errb.String())

	body := []byte(`{"ref":"refs/heads/main","repository":{"full_name":"acme/gitops"},"commits":[{"id":"c1","message":"[slipway][deploy] acme/web"}]}`)
	req, err := http.NewRequest(http.MethodPost, url+"/github", bytes.NewReader(body))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", "down-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(msg))
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Contains(t, string(msg), "redeliver it")
}

// An unsigned delivery is refused by `webhook serve` from its headers: the server never waits for
// its body (the read timeout is off here, so it would wait for ever), and the client gets 401.
func TestWebhookServeRefusesAnUnsignedDeliveryBeforeItsBody(t *testing.T) {
	testKeys(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close())
	t.Setenv("TEMPORAL_ADDRESS", dead)
	t.Setenv("SLIPWAY_WEBHOOK_GITHUB_SECRET", "s3cret")
	t.Setenv("SLIPWAY_FORGE", "github")
	t.Setenv("SLIPWAY_FORGE_REPO", "acme/gitops")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"webhook", "serve", "--listen", "127.0.0.1:0", "--read-timeout", "0"},
			Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	var addr string
	for addr == "" && sc.Scan() {
		if m := regexp.MustCompile(`serving on http://(\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.NotEmpty(t, addr, "stderr: %s", errb.String())

	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Minute))) // a hang fails, it does not block the suite
	_, err = io.WriteString(conn, "POST /github HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
		"X-GitHub-Event: push\r\nX-GitHub-Delivery: unsigned-1\r\nContent-Length: 1000000\r\n\r\n{\"ref\":")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered with the body still unsent")
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, string(msg))
	require.Contains(t, string(msg), "missing X-Hub-Signature-256")
}

// Bad webhook settings are refused at start-up with exit 2, naming the setting, before anything listens.
func TestWebhookServeRefusesBadSettings(t *testing.T) {
	testKeys(t)
	dir := t.TempDir()
	empty := dir + "/empty"
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"SLIPWAY_WEBHOOK_SECRET": "s"}, nil, "SLIPWAY_WEBHOOK_SECRET: one secret for every forge is no longer accepted"},
		{nil, []string{"--secret-file", empty}, "--secret-file: one secret for every forge is no longer accepted"},
		{nil, nil, "no webhook secret: set SLIPWAY_WEBHOOK_GITHUB_SECRET, SLIPWAY_WEBHOOK_GITLAB_TOKEN and/or SLIPWAY_WEBHOOK_GITEA_SECRET"},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "s"}, nil, "--github-repos: SLIPWAY_WEBHOOK_GITHUB_SECRET serves github deliveries, but no repository is allowed"},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "s"}, []string{"--github-repos", "acme"}, `--github-repos: "acme" is not a repository`},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "s", "SLIPWAY_FORGE": "github", "SLIPWAY_FORGE_REPO": "a/b/../c"}, nil, "SLIPWAY_FORGE_REPO: "},
		{nil, []string{"--gitea-repos", "acme/gitops"}, "--gitea-repos: the gitea endpoint has no secret: set SLIPWAY_WEBHOOK_GITEA_SECRET"},
		{nil, []string{"--gitlab-token-file", empty, "--gitlab-repos", "a/b"}, "--gitlab-token-file: " + empty + " is empty"},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "same", "SLIPWAY_WEBHOOK_GITLAB_TOKEN": "same"},
			[]string{"--github-repos", "a/b", "--gitlab-repos", "a/b"}, "SLIPWAY_WEBHOOK_GITLAB_TOKEN: it is the github secret too"},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "s"}, []string{"--github-repos", "a/b", "--commit-ops", "deploy,nuke"}, `--commit-ops: "nuke" is not an operation`},
		{map[string]string{"SLIPWAY_WEBHOOK_GITHUB_SECRET": "s"}, []string{"--github-repos", "a/b", "--commit-ops", "deprovision"}, "--commit-ops: deprovision also needs --allow-deprovision"},
	} {
		for _, k := range []string{"SLIPWAY_WEBHOOK_SECRET", "SLIPWAY_WEBHOOK_GITHUB_SECRET", "SLIPWAY_WEBHOOK_GITLAB_TOKEN", "SLIPWAY_WEBHOOK_GITEA_SECRET", "SLIPWAY_FORGE", "SLIPWAY_FORGE_REPO"} {
			t.Setenv(k, tc.env[k])
		}
		code, _, errs := run(t, append([]string{"webhook", "serve", "--listen", "127.0.0.1:0"}, tc.args...)...)
		require.Equal(t, ExitUsage, code, "%v %v: %s", tc.env, tc.args, errs)
		require.Contains(t, errs, tc.want, "%v %v", tc.env, tc.args)
	}
}
