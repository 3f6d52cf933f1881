package production

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// serviceClient is the identity every slipway component in the topology signs in as.
const serviceClient = "slipway-worker"

// startIdentityProvider starts the real OpenID provider the cluster trusts and returns the
// cluster's authorization settings; nil (authorization off, said in the log) when node or the
// provider's node_modules are missing and SLIPWAY_REQUIRE_OIDC is not 1.
func (w *world) startIdentityProvider() *temporalcluster.Authorization {
	begin := time.Now()
	p, err := oidcprovider.Launch(context.Background(), oidcprovider.Options{})
	var missing *oidcprovider.MissingError
	switch {
	case errors.As(err, &missing) && os.Getenv(oidcprovider.EnvRequire) != "1":
		w.t.Logf("AUTHORIZATION OFF: %v", err)
		return nil
	case err != nil:
		w.t.Fatalf("%v", err)
	}
	w.t.Cleanup(func() {
		if err := p.Close(); err != nil {
			w.t.Errorf("oidcprovider: %v", err)
		}
	})
	w.idp = p
	w.authzSetup = time.Since(begin)
	// The audience: a token the provider issued for anything else (an ID token for the CLI) is refused.
	return &temporalcluster.Authorization{JWKSURL: p.JWKSURL, Audience: oidcprovider.Resource}
}

// serviceEnv is what a slipway component needs to sign in to Temporal as the service client.
func (w *world) serviceEnv() []string {
	if w.idp == nil {
		return nil
	}
	return []string{client.EnvTokenURL + "=" + w.idp.TokenURL, client.EnvClientID + "=" + serviceClient,
		client.EnvClientSecret + "=" + w.idp.ClientSecret(serviceClient)}
}

// serviceToken is the test's own slipway client's credential, read from the same variables.
func (w *world) serviceToken() client.Option {
	env := map[string]string{}
	for _, kv := range w.serviceEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	tok, err := client.TokenFromEnv(func(k string) string { return env[k] })
	require.NoError(w.t, err)
	require.NotNil(w.t, tok)
	return client.WithToken(tok)
}

// dialAs is a slipway client of the cluster's frontend with token ("" = none).
func (w *world) dialAs(token string) *client.Client {
	opts := []client.Option{client.WithHostPort(w.temporal.Frontend()), client.WithKeyring(w.keys),
		client.WithLogger(logging.NewTemporal(logging.Nop()))}
	if token != "" {
		opts = append(opts, client.WithToken(func(context.Context) (string, error) { return token, nil }))
	}
	// Lazy: a token the server cannot verify fails even the SDK's first call, which is allowed
	// to anyone (GetSystemInfo), so Dial itself would fail before the call the test makes.
	c, err := client.DialLazy(taskQueue, opts...)
	require.NoError(w.t, err)
	w.t.Cleanup(c.Close)
	return c
}

// checkAuthorization is what people and strangers can do through the cluster's frontend to
// ref, a running instance: a person's token reads but cannot signal, update, terminate or
// start; no token and tokens the provider did not sign do nothing at all. The server's own
// worker still runs through its internal frontend. It returns how long the checks took.
func (w *world) checkAuthorization(ctx context.Context, ref contract.Ref) time.Duration {
	t := w.t
	begin := time.Now()
	wfID := contract.InstanceWorkflowID(ref)
	before, err := w.client.Status(ctx, ref, contract.StatusRequest{})
	require.NoError(t, err)

	// (b) alice signs in on the provider's real pages; her access token carries default:read.
	alice, err := w.idp.SignIn(ctx, "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	reader := w.dialAs(alice.AccessToken)
	st, err := reader.Status(ctx, ref, contract.StatusRequest{})
	require.NoError(t, err, "a person's token reads the instance (query)")
	assert.Equal(t, before.State, st.State)
	_, err = reader.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
	require.NoError(t, err, "a person's token describes the instance")
	items, err := reader.List(ctx, client.ListFilter{Tenant: ref.Tenant})
	require.NoError(t, err, "a person's token lists instances")
	require.NotEmpty(t, items)
	hist := reader.Temporal.GetWorkflowHistory(ctx, wfID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.True(t, hist.HasNext())
	_, err = hist.Next()
	require.NoError(t, err, "a person's token reads the history")

	probe := "authz-probe-" + ref.Name
	refused := func(what string, err error) {
		t.Helper()
		var denied *serviceerror.PermissionDenied
		require.ErrorAs(t, err, &denied, "%s must be refused by the frontend", what)
	}
	refused("alice's signal", reader.Temporal.SignalWorkflow(ctx, wfID, "", probe, nil))
	_, err = reader.Temporal.UpdateWorkflow(ctx, sdkclient.UpdateWorkflowOptions{WorkflowID: wfID, UpdateName: string(lifecycle.OpDestroy),
		UpdateID: probe, Args: []any{contract.OperationRequest{Actor: "alice"}}, WaitForStage: sdkclient.WorkflowUpdateStageAccepted})
	refused("alice's update (destroy)", err)
	_, err = reader.Submit(ctx, ref, lifecycle.OpArchive, contract.OperationRequest{Actor: "alice"}, probe+"-archive")
	refused("alice's slipway request (archive)", err)
	refused("alice's terminate", reader.Temporal.TerminateWorkflow(ctx, wfID, "", "alice was here"))
	_, err = reader.Submit(ctx, contract.Ref{Tenant: ref.Tenant, Name: "alice-new"}, lifecycle.OpProvision,
		contract.OperationRequest{ConfigYAML: configV(1), Actor: "alice"}, probe+"-create")
	refused("alice's create (start)", err)

	w.checkSignedInCLI(ctx, alice, ref)

	// The real temporal CLI with her token as its API key, plaintext to the loopback frontend.
	if cli, err := devenv.FindTemporal(); err == nil {
		run := func(args ...string) (string, error) {
			full := append(args, "--address", w.temporal.Frontend(), "--namespace", "default",
				"--api-key", alice.AccessToken, "--tls=false")
			out, err := exec.CommandContext(ctx, cli, full...).CombinedOutput()
			return string(out), err
		}
		out, err := run("workflow", "describe", "--workflow-id", wfID)
		require.NoError(t, err, "temporal workflow describe with alice's token:\n%s", out)
		for _, args := range [][]string{
			{"workflow", "signal", "--workflow-id", wfID, "--name", probe + "-cli"},
			{"workflow", "update", "execute", "--workflow-id", wfID, "--name", string(lifecycle.OpDestroy), "--input", `{"actor":"alice"}`},
			{"workflow", "terminate", "--workflow-id", wfID, "--reason", "alice was here"},
		} {
			out, err := run(args...)
			require.Error(t, err, "temporal %s with alice's token must fail:\n%s", strings.Join(args[:2], " "), out)
			assert.Contains(t, out, "Request unauthorized", "temporal %s", strings.Join(args[:2], " "))
		}
	} else {
		t.Logf("temporal CLI checks skipped: %v", err)
	}

	// (c) no token at all: not even a read.
	anon := w.dialAs("")
	_, err = anon.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
	refused("a describe without a token", err)
	refused("a signal without a token", anon.Temporal.SignalWorkflow(ctx, wfID, "", probe, nil))

	// (d) tokens the trusted provider did not sign. A second real provider's service token
	// (default:write, the same audience) and a token forged with the trusted key's ID but the
	// attacker's own key, claiming system admin; and one with no signature at all.
	foreign, err := oidcprovider.Launch(ctx, oidcprovider.Options{})
	require.NoError(t, err)
	defer foreign.Close()
	ft, err := foreign.ServiceToken(ctx, serviceClient)
	require.NoError(t, err)
	forged := forgeToken(t, w.idp.Issuer, w.idp.KeyID)
	unsigned := unsignedToken(w.idp.Issuer)
	for name, tok := range map[string]string{"a foreign provider's token": ft.AccessToken,
		"a token forged with the provider's key ID": forged, "an unsigned token": unsigned} {
		c := w.dialAs(tok)
		_, err := c.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
		refused(name+" (describe)", err)
		refused(name+" (signal)", c.Temporal.SignalWorkflow(ctx, wfID, "", probe, nil))
		refused(name+" (terminate)", c.Temporal.TerminateWorkflow(ctx, wfID, "", name))
	}
	// The CLI's ID token is for the CLI, not for Temporal: its audience is refused.
	_, err = w.dialAs(alice.IDToken).Temporal.DescribeWorkflowExecution(ctx, wfID, "")
	refused("alice's ID token (another audience)", err)

	// Nothing changed: still running, same state, and no refused call left a trace in history.
	desc, err := w.client.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
	after, err := w.client.Status(ctx, ref, contract.StatusRequest{})
	require.NoError(t, err)
	assert.Equal(t, before.State, after.State)
	events := w.client.Temporal.GetWorkflowHistory(ctx, wfID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for events.HasNext() {
		ev, err := events.Next()
		require.NoError(t, err)
		if s := ev.GetWorkflowExecutionSignaledEventAttributes(); s != nil {
			assert.NotContains(t, s.GetSignalName(), "authz-probe", "a refused signal reached the instance")
		}
		if u := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); u != nil {
			assert.NotContains(t, u.GetProtocolInstanceId()+u.GetAcceptedRequest().GetMeta().GetUpdateId(), "authz-probe", "a refused update was accepted")
		}
	}
	_, err = w.client.Temporal.DescribeWorkflowExecution(ctx, contract.InstanceWorkflowID(contract.Ref{Tenant: ref.Tenant, Name: "alice-new"}), "")
	var nf *serviceerror.NotFound
	require.ErrorAs(t, err, &nf, "alice's refused create started nothing")

	w.checkServerWorker(ctx)
	return time.Since(begin)
}

// checkServerWorker shows the server's own worker service still works with authorization on:
// a schedule's start is made by the server's scheduler workflow through the internal frontend
// (the public one would refuse it: it carries no token).
func (w *world) checkServerWorker(ctx context.Context) {
	t := w.t
	sc := w.client.Temporal.ScheduleClient()
	id := "authz-internal-frontend"
	h, err := sc.Create(ctx, sdkclient.ScheduleOptions{ID: id,
		Spec: sdkclient.ScheduleSpec{Intervals: []sdkclient.ScheduleIntervalSpec{{Every: 24 * time.Hour}}},
		// A task queue no worker polls: the started workflow only has to exist.
		Action: &sdkclient.ScheduleWorkflowAction{ID: id + "-run", Workflow: "authz-probe", TaskQueue: "authz-probe"},
	})
	require.NoError(t, err, "a service token creates a schedule")
	defer func() { _ = h.Delete(context.Background()) }()
	require.NoError(t, h.Trigger(ctx, sdkclient.ScheduleTriggerOptions{}))
	deadline := time.Now().Add(time.Minute)
	for {
		d, err := h.Describe(ctx)
		require.NoError(t, err)
		if len(d.Info.RecentActions) > 0 {
			run := d.Info.RecentActions[0].StartWorkflowResult
			require.NotNil(t, run)
			require.NoError(t, w.client.Temporal.TerminateWorkflow(ctx, run.WorkflowID, run.FirstExecutionRunID, "authz check done"))
			return
		}
		require.True(t, time.Now().Before(deadline), "the server's scheduler started nothing: its worker cannot reach a frontend (%+v)", d.Info)
		time.Sleep(200 * time.Millisecond)
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// forgeToken is the attack on the JWT authorizer: a token naming the trusted key's ID and
// claiming system admin, signed with a key the attacker made.
func forgeToken(t *testing.T, issuer, kid string) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	head, _ := json.Marshal(map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid})
	claims, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "mallory", "aud": oidcprovider.Resource,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
		"permissions": []string{"temporal-system:admin", "default:admin"}})
	in := b64(head) + "." + b64(claims)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	require.NoError(t, err)
	return in + "." + b64(sig)
}

// unsignedToken is a token with alg "none".
func unsignedToken(issuer string) string {
	head, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": issuer, "sub": "mallory", "aud": oidcprovider.Resource,
		"exp": time.Now().Add(time.Hour).Unix(), "permissions": []string{"temporal-system:admin"}})
	return b64(head) + "." + b64(claims) + "."
}

// checkSignedInCLI runs `slipway status` as alice after `slipway login` (her sign-in in the
// token cache): the CLI's read carries her access token. Signed out, the same read is refused.
func (w *world) checkSignedInCLI(ctx context.Context, alice oidcprovider.Tokens, ref contract.Ref) {
	t := w.t
	idExp, err := identity.Expiry(alice.IDToken)
	require.NoError(t, err)
	signedIn, signedOut := t.TempDir(), t.TempDir()
	restore := setenv(t, map[string]string{"TEMPORAL_ADDRESS": w.temporal.Frontend(), "XDG_CONFIG_HOME": signedIn, identity.EnvProfile: ""})
	defer restore()
	require.NoError(t, identity.SaveToken(identity.DefaultProfile, identity.Token{Issuer: w.idp.Issuer, ClientID: w.idp.ClientID,
		Endpoints: identity.Endpoints{Token: w.idp.TokenURL}, IDToken: alice.IDToken, AccessToken: alice.AccessToken,
		RefreshToken: alice.RefreshToken, Expiry: idExp, AccessTokenExpiry: alice.Expiry, Name: "alice"}))
	status := func() (int, string) {
		var out, errb strings.Builder
		code := cli.Main(ctx, []string{"--task-queue", taskQueue, "status", ref.String(), "--json"},
			cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String() + errb.String()
	}
	code, out := status()
	require.Equal(t, cli.ExitOK, code, "slipway status signed in as alice:\n%s", out)
	assert.Contains(t, out, `"state"`)
	require.NoError(t, os.Setenv("XDG_CONFIG_HOME", signedOut))
	code, out = status()
	assert.Equal(t, cli.ExitRefused, code, "slipway status signed out must be refused:\n%s", out)
}

// setenv sets vars for the process and returns what puts them back.
func setenv(t *testing.T, vars map[string]string) func() {
	old := map[string]*string{}
	for k, v := range vars {
		if prev, ok := os.LookupEnv(k); ok {
			old[k] = &prev
		} else {
			old[k] = nil
		}
		require.NoError(t, os.Setenv(k, v))
	}
	return func() {
		for k, v := range old {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}
