package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Attack 3 of the trust issue (P4, every read is a decision), on the real stack with the real
// identity provider: mallory (signed in, no group) and bob (tenant other) read nothing of acme's
// through `slipway server`, by any command: a named read of acme/web (status --detail all,
// events, plan, secrets, gate list) is refused with exit 3 naming the tenant, and a fleet read
// (list, events, rollout plan with --set, drift list, audit) answers without a single acme row,
// value or name, while bob still sees his own tenant. alice reads acme's; carol reads everything.
func TestReadsThroughTheServerShowOnlyReadableTenants(t *testing.T) {
	w := newPeople(t)
	e := w.e
	mallory := signIn(t, w.p, "mallory")
	// bob's own instance, so fleet reads have rows he may read; its greeting differs from acme's.
	inst := writeFile(t, "stack: example\nparameters:\n  greeting: bonjour\n  replicas: 1\n")
	w.as(w.bob, 0, "create", "other/db", "-f", inst, "--wait")
	w.as(w.bob, 0, "deploy", "other/db", "--wait")
	// acme/web drifts, so `drift list` has an acme row to leak.
	tamperState(t, e, "acme", "web")
	drift, err := e.Client.CheckDrift(t.Context(), contract.Ref{Tenant: "acme", Name: "web"}, contract.DriftRequest{}, "attack-reads-drift")
	require.NoError(t, err)
	require.True(t, drift.Drifted)

	leaks := func(t *testing.T, out string) {
		t.Helper()
		require.NotContains(t, out, "acme")
		require.NotContains(t, out, "hello", "acme/web's greeting")
		for _, v := range w.secrets {
			require.NotContains(t, out, v)
		}
	}
	for who, tok := range map[string]string{"mallory": mallory, "bob": w.bob} {
		t.Run(who, func(t *testing.T) {
			for _, args := range [][]string{
				{"status", acmeWeb, "--detail", "all"},
				{"status", acmeWeb, "--refresh"},
				{"status", acmeWeb, "-o", "json"},
				{"events", acmeWeb},
				{"events", acmeWeb, "-o", "jsonl"},
				{"plan", acmeWeb},
				{"secrets", acmeWeb},
				{"gate", "list", acmeWeb},
				{"status", "acme/no-such-instance"}, // not told apart from one that exists
			} {
				r := w.as(tok, 3, args...)
				require.Contains(t, r.Stderr, "denied by policy", "%v", args)
				require.Contains(t, r.Stderr, who+" may not", "%v", args)
				require.Contains(t, r.Stderr, "tenant acme", "the refusal names the tenant: %v", args)
				require.Empty(t, r.Stdout, "%v", args)
				require.NotContains(t, r.Stderr, "hello")
			}
			for _, args := range [][]string{
				{"list", "--all"},
				{"list", "--tenant", "acme", "-o", "json"},
				{"list", "--stack", "example"},
				{"list", "--stack", "example", "--counts"},
				{"events"},
				{"rollout", "plan", "--stack", "example", "--tenant", "acme", "--set", "greeting=y", "-o", "json"},
				{"drift", "list"},
				{"drift", "list", "--tenant", "acme"},
				{"audit"},
				{"audit", "--tenant", "acme"},
			} {
				r := w.as(tok, 0, args...)
				leaks(t, r.Stdout+r.Stderr)
				if who == "bob" && (args[0] == "list" && len(args) == 2 || args[0] == "audit" && len(args) == 1) {
					require.Contains(t, r.Stdout, "other", "bob reads his own tenant: %v", args)
				}
			}
			// A plan over every tenant is a read of every tenant (security.md case 42).
			r := w.as(tok, 3, "rollout", "plan", "--stack", "example", "--set", "greeting=y")
			require.Contains(t, r.Stderr, "name your tenant (--tenant)")
			leaks(t, r.Stdout+r.Stderr)
		})
	}
	// bob's rollout plan shows his own instance's value, only.
	plan := w.as(w.bob, 0, "rollout", "plan", "--stack", "example", "--tenant", "other", "--set", "greeting=y").Stdout
	require.Contains(t, plan, "other/db")
	require.Contains(t, plan, "greeting=bonjour")

	// alice reads acme's, and nothing of other's.
	st := w.as(w.alice, 0, "status", acmeWeb, "--detail", "all").Stdout
	require.Contains(t, st, string(lifecycle.Deployed))
	require.NotEmpty(t, w.as(w.alice, 0, "events", acmeWeb).Stdout)
	for _, args := range [][]string{
		{"list"},
		{"rollout", "plan", "--stack", "example", "--tenant", "acme", "--set", "greeting=y"},
		{"drift", "list"},
		{"audit"},
	} {
		out := w.as(w.alice, 0, args...).Stdout
		require.Contains(t, out, acmeWeb, "%v", args)
		require.NotContains(t, out, "other/db", "%v", args)
		require.NotContains(t, out, "bonjour", "%v", args)
	}
	require.Contains(t, w.as(w.alice, 0, "rollout", "plan", "--stack", "example", "--tenant", "acme", "--set", "greeting=y").Stdout, "greeting=hello")
	r := w.as(w.alice, 3, "status", "other/db")
	require.Contains(t, r.Stderr, "alice may not read instances of tenant other")

	// carol, a platform admin, reads every tenant.
	all := w.as(w.carol, 0, "list").Stdout
	require.Contains(t, all, acmeWeb)
	require.Contains(t, all, "other/db")

	// Following acme/web's log through the server: alice gets the entry that comes next; mallory
	// is refused before anything is read.
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	as := func(tok string) *apiserver.Client {
		c, err := apiserver.NewClient(w.url, func(context.Context) (string, error) { return tok, nil })
		require.NoError(t, err)
		return c
	}
	err = as(mallory).InstanceEvents(ctx, ref, true, func(client.InstanceEvent) error { return nil })
	require.True(t, client.IsRefused(err), "%v", err)
	had := 0
	require.NoError(t, as(w.alice).InstanceEvents(ctx, ref, false, func(client.InstanceEvent) error { had++; return nil }))
	done, caughtUp := make(chan error, 1), make(chan struct{})
	var followed []string
	go func() {
		done <- as(w.alice).InstanceEvents(ctx, ref, true, func(ev client.InstanceEvent) error {
			followed = append(followed, ev.Text)
			if len(followed) == had {
				close(caughtUp) // what follows comes by the long poll
			}
			if strings.Contains(ev.Text, "freeze") {
				return client.ErrStopEvents
			}
			return nil
		})
	}()
	<-caughtUp
	e.MustCLI(0, "gate", "add", acmeWeb, "freeze")
	require.NoError(t, <-done)
	require.Contains(t, followed[len(followed)-1], "freeze", "the follow ends at the new entry")
}
