package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// The policy decides every verified update before its handler runs: bob (tenant other) cannot
// deploy or gate acme's instance, and nothing changes; alice (tenant acme) can; each decision is
// in `slipway events` with the actor and the policy's hash.
func TestPolicyDecidesEveryUpdate(t *testing.T) {
	e := testsuite.NewEnv(t)
	const ref = "acme/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"), "--wait")
	before := e.Status(ref)

	t.Setenv(cli.EnvDevIdentity, "bob:tenant:other")
	for _, args := range [][]string{{"deploy", ref, "--wait"}, {"gate", "add", ref, "freeze", "--reason", "mine"}} {
		r := e.CLI(args...)
		require.NotEqual(t, 0, r.Code, "%v: %s", args, r.Stdout)
		require.Contains(t, r.Stderr, "denied by policy")
		require.Contains(t, r.Stderr, "bob may not")
	}
	after := e.Status(ref)
	require.Equal(t, before.State, after.State)
	require.Equal(t, before.Operation.ID, after.Operation.ID, "no operation started")
	require.Empty(t, after.Gates)

	t.Setenv(cli.EnvDevIdentity, "alice:tenant:acme")
	e.MustCLI(0, "deploy", ref, "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status(ref).State)

	events := e.MustCLI(0, "events", ref).Stdout
	var denied, allowed bool
	for _, line := range strings.Split(events, "\n") {
		denied = denied || strings.Contains(line, "update deploy denied for bob by policy ") && strings.Contains(line, "bob may not deploy")
		allowed = allowed || strings.Contains(line, "update deploy allowed for alice by policy ")
	}
	require.True(t, denied, "events:\n%s", events)
	require.True(t, allowed, "events:\n%s", events)
	require.Contains(t, events, "deploy requested by bob")
}
