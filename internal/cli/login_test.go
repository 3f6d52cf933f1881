package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// syncBuffer is a bytes.Buffer a running command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// background is a CLI command running while the test plays the user in the provider's pages.
type background struct {
	out, err syncBuffer
	done     chan int
}

func startCLI(args ...string) *background {
	b := &background{done: make(chan int, 1)}
	go func() {
		b.done <- Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &b.out, Err: &b.err})
	}()
	return b
}

// await returns the submatches of re once the command's stderr has them.
func (b *background) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	// Only a guard against a hung command: the prompt appears as soon as discovery answers.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(b.err.String()); m != nil {
			return m
		}
		select {
		case code := <-b.done:
			t.Fatalf("slipway exited %d before printing %s:\n%s%s", code, re, b.out.String(), b.err.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("slipway printed no %s:\n%s", re, b.err.String())
	return nil
}

func (b *background) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-b.done:
		return code
	case <-time.After(2 * time.Minute):
		t.Fatalf("slipway did not exit:\n%s%s", b.out.String(), b.err.String())
		return -1
	}
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

var deviceprompt = regexp.MustCompile(`open\n\n  (\S+)\n\nand enter the code\n\n  (\S+)\n`)

// `slipway login --device` end to end: the test is alice at the real provider's device, login
// and consent pages; then whoami verifies the cached token, and logout forgets and revokes it.
func TestLoginDeviceFlowWhoamiLogout(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(identity.EnvProfile, "")
	p := oidcprovider.Start(t, oidcprovider.Options{})

	login := startCLI("login", "--issuer", p.Issuer, "--client-id", p.ClientID, "--device")
	m := login.await(t, deviceprompt)
	require.NoError(t, p.Browser().ApproveDevice(context.Background(), m[1], m[2], "alice", oidcprovider.Password("alice")))
	require.Equal(t, 0, login.exit(t), login.err.String())
	require.Equal(t, "Signed in as alice (groups: tenant:acme) at "+p.Issuer+" (profile default)\n", login.out.String())

	code, out, errOut := runCLI("whoami")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "alice (person, "+p.Issuer+")\nsubject: user-alice\nemail: alice@acme.example\ngroups: tenant:acme\n")
	code, out, errOut = runCLI("whoami", "--json")
	require.Equal(t, 0, code, errOut)
	var a identity.Actor
	require.NoError(t, json.Unmarshal([]byte(out), &a))
	require.Equal(t, identity.Actor{Kind: identity.Person, Issuer: p.Issuer, Subject: "user-alice", Name: "alice",
		Email: "alice@acme.example", Groups: []string{"tenant:acme"}}, a)

	signedIn, err := identity.LoadToken("default")
	require.NoError(t, err)
	require.NotEmpty(t, signedIn.RefreshToken)
	code, out, errOut = runCLI("logout")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "Signed out of "+p.Issuer+" (profile default)\nRefresh token revoked at "+p.Issuer+"\n", out)
	code, _, errOut = runCLI("whoami")
	require.Equal(t, exitNotSignedIn, code)
	require.Contains(t, errOut, `not signed in (profile "default")`)
	require.Contains(t, errOut, "run slipway login")
	// Revoked at the provider, not only forgotten here.
	_, err = identity.Refresh(context.Background(), signedIn)
	require.ErrorIs(t, err, identity.ErrNotSignedIn)

	code, out, _ = runCLI("logout")
	require.Equal(t, 0, code)
	require.Contains(t, out, "nothing to forget")
}

// `slipway login` with the authorization code flow and PKCE: the browser (the test, as carol)
// comes back to the CLI's own loopback listener.
func TestLoginBrowserFlowWithPKCE(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := oidcprovider.Start(t, oidcprovider.Options{})
	t.Setenv(envOIDCIssuer, p.Issuer)

	login := startCLI("login", "--profile", "ops")
	m := login.await(t, regexp.MustCompile(`sign in at \S+:\n\n  (\S+)\n\nWaiting for the browser to come back to (\S+)\n`))
	authURL, err := url.Parse(m[1])
	require.NoError(t, err)
	require.Equal(t, "S256", authURL.Query().Get("code_challenge_method"))
	require.NotEmpty(t, authURL.Query().Get("code_challenge"))

	// Someone else knocking on the loopback callback with a code but not our state changes nothing.
	resp, err := http.Get(m[2] + "?code=stolen&state=guessed")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)

	b := p.Browser()
	b.FollowCallback = true
	final, err := b.Authorize(context.Background(), m[1], "carol", oidcprovider.Password("carol"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(final.String(), m[2]), final.String())
	require.Equal(t, 0, login.exit(t), login.err.String())
	require.Equal(t, "Signed in as carol (groups: platform-admins) at "+p.Issuer+" (profile ops)\n", login.out.String())

	code, out, errOut := runCLI("whoami", "--profile", "ops")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "carol (person, "+p.Issuer+")")
	code, _, _ = runCLI("whoami")
	require.Equal(t, exitNotSignedIn, code, "the default profile is not signed in")

	// An expired ID token with no refresh token is refused with the refusal exit code.
	tok, err := identity.LoadToken("ops")
	require.NoError(t, err)
	tok.RefreshToken, tok.Expiry = "", time.Now().Add(-time.Minute)
	require.NoError(t, identity.SaveToken("ops", tok))
	code, _, errOut = runCLI("whoami", "--profile", "ops")
	require.Equal(t, exitNotSignedIn, code)
	require.Contains(t, errOut, "expired")
	require.Contains(t, errOut, "run slipway login --profile ops")
}

// A wrong password on the provider's page never signs anyone in.
func TestLoginWrongPasswordSignsNobodyIn(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := oidcprovider.Start(t, oidcprovider.Options{})
	login := startCLI("login", "--issuer", p.Issuer)
	m := login.await(t, regexp.MustCompile(`sign in at \S+:\n\n  (\S+)\n`))
	b := p.Browser()
	_, err := b.Authorize(context.Background(), m[1], "alice", "guessed")
	require.ErrorContains(t, err, "Invalid username or password")
	// The user gives up: Cancel on the provider's page sends the browser back with access_denied.
	b.FollowCallback = true
	_, err = b.Cancel(context.Background(), m[1])
	require.NoError(t, err)
	require.Equal(t, ExitFailed, login.exit(t))
	require.Contains(t, login.err.String(), "refused: access_denied: the user cancelled the sign-in")
	_, err = identity.LoadToken("default")
	require.ErrorIs(t, err, identity.ErrNotSignedIn)
}

// Bad input exits 2 naming the flag, before anything is fetched or cached.
func TestLoginRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv(envOIDCIssuer, "")
	cases := map[string]struct {
		args []string
		want string
	}{
		"no issuer":        {[]string{"login"}, "--issuer: required"},
		"http issuer":      {[]string{"login", "--issuer", "http://idp.example.com"}, "must be https"},
		"relative issuer":  {[]string{"login", "--issuer", "idp.example.com"}, "--issuer"},
		"bad profile":      {[]string{"login", "--issuer", "https://idp.example.com", "--profile", "../x"}, "--profile"},
		"public listen":    {[]string{"login", "--issuer", "https://idp.example.com", "--listen", "0.0.0.0:0"}, "--listen"},
		"no openid scope":  {[]string{"login", "--issuer", "https://idp.example.com", "--scopes", "profile"}, "--scopes"},
		"empty client":     {[]string{"login", "--issuer", "https://idp.example.com", "--client-id", " "}, "--client-id"},
		"whoami profile":   {[]string{"whoami", "--profile", "a/b"}, "--profile"},
		"logout arguments": {[]string{"logout", "extra"}, "no arguments"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runCLI(tc.args...)
			require.Equal(t, ExitUsage, code, errOut)
			require.Contains(t, errOut, tc.want)
		})
	}
	_, err := os.Stat(filepath.Join(dir, "slipway", "tokens.json"))
	require.True(t, os.IsNotExist(err), "nothing was cached: %v", err)
}
