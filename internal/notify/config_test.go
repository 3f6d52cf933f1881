package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testSecret = "s3cr3t-hmac-key-do-not-print"

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

var testEnv = env(map[string]string{"SLIPWAY_OPS_HOOK_SECRET": testSecret, "EMPTY": ""})

const fullConfig = `
sinks:
  - name: ops
    kind: webhook
    url: https://hooks.example.com/slipway
    secretEnv: SLIPWAY_OPS_HOOK_SECRET
    tenants: [acme]
    events: [Failed, Ready]
  - name: chat
    kind: slack
    url: https://hooks.slack.com/services/T000/B000/XXXXSLACKTOKEN
    events: [Failed, Drifted, RolloutBatch, AwaitingApproval]
  - name: reviews
    kind: forge
  - name: local
    kind: webhook
    url: http://127.0.0.1:8080/hook
    secretEnv: SLIPWAY_OPS_HOOK_SECRET
    tenants: [globex, acme]
`

func TestParseAllKinds(t *testing.T) {
	cfg, err := Parse([]byte(fullConfig), testEnv)
	require.NoError(t, err)
	require.Len(t, cfg.Sinks, 4)

	ops := cfg.Sinks[0]
	assert.Equal(t, "ops", ops.Name)
	assert.Equal(t, SinkWebhook, ops.Kind)
	assert.Equal(t, "https://hooks.example.com/slipway", ops.url)
	assert.Equal(t, "SLIPWAY_OPS_HOOK_SECRET", ops.secretEnv)
	assert.Equal(t, testSecret, string(ops.secret))
	assert.Equal(t, []string{"acme"}, ops.tenants)
	assert.Equal(t, []Kind{KindFailed, KindReady}, ops.events)

	assert.Equal(t, SinkSlack, cfg.Sinks[1].Kind)
	assert.Empty(t, cfg.Sinks[1].secret)
	assert.Equal(t, SinkForge, cfg.Sinks[2].Kind)
	assert.Empty(t, cfg.Sinks[2].url)
	assert.Nil(t, cfg.Sinks[2].tenants)
	assert.Nil(t, cfg.Sinks[2].events)
	assert.Equal(t, "http://127.0.0.1:8080/hook", cfg.Sinks[3].url)

	s, ok := cfg.Sink("reviews")
	assert.True(t, ok)
	assert.Equal(t, SinkForge, s.Kind)
	_, ok = cfg.Sink("nope")
	assert.False(t, ok)
}

func TestParseEmpty(t *testing.T) {
	for _, doc := range []string{"", "# nothing\n", "sinks:\n", "sinks: []\n"} {
		cfg, err := Parse([]byte(doc), testEnv)
		require.NoError(t, err, doc)
		assert.Empty(t, cfg.Sinks, doc)
		assert.Empty(t, cfg.Match(Event{Kind: KindFailed}))
	}
}

func TestParseLoopbackHTTPAllowed(t *testing.T) {
	for _, u := range []string{
		"http://localhost:9000/x", "http://LOCALHOST/x", "http://127.0.0.1/x",
		"http://127.8.9.10:1/x", "http://[::1]:8080/x", "https://hooks.example.com",
	} {
		doc := fmt.Sprintf("sinks:\n  - {name: a, kind: slack, url: %q}\n", u)
		_, err := Parse([]byte(doc), testEnv)
		assert.NoError(t, err, u)
	}
}

// configError parses doc and returns its *ConfigError, failing when there is none.
func configError(t *testing.T, doc string, getenv func(string) string) *ConfigError {
	t.Helper()
	cfg, err := Parse([]byte(doc), getenv)
	require.Error(t, err)
	assert.Nil(t, cfg)
	var ce *ConfigError
	require.True(t, errors.As(err, &ce), "%T %v", err, err)
	return ce
}

func TestParseFieldErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		field     string
		want      string // the whole "field: message", or a prefix of it ending in "…"
	}{
		{"unknown kind", `
sinks:
  - {name: a, kind: slack, url: "https://h.example.com/x"}
  - {name: b, kind: pager}`,
			"sinks[1].kind", `sinks[1].kind: unknown value "pager"; allowed: webhook, slack, forge`},
		{"missing kind", "sinks:\n  - {name: a}\n", "sinks[0].kind", "sinks[0].kind: is required; allowed: webhook, slack, forge"},
		{"missing name", "sinks:\n  - {kind: forge}\n", "sinks[0].name", "sinks[0].name: is required"},
		{"bad name", "sinks:\n  - {name: Ops_1, kind: forge}\n", "sinks[0].name", `sinks[0].name: "Ops_1" must be a DNS-1123 label…`},
		{"missing url webhook", "sinks:\n  - {name: a, kind: webhook, secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n",
			"sinks[0].url", "sinks[0].url: is required for kind webhook"},
		{"missing url slack", "sinks:\n  - {name: a, kind: slack, url: ''}\n", "sinks[0].url", "sinks[0].url: is required for kind slack"},
		{"url on forge", "sinks:\n  - {name: a, kind: forge, url: 'https://x.example.com'}\n", "sinks[0].url", "sinks[0].url: is not allowed for kind forge…"},
		{"http non-loopback", "sinks:\n  - {name: a, kind: slack, url: 'http://hooks.example.com/x'}\n",
			"sinks[0].url", `sinks[0].url: "http://hooks.example.com/..." must be https (http is allowed only on loopback)`},
		{"http non-loopback webhook", "sinks:\n  - {name: a, kind: webhook, url: 'http://hooks.example.com/x', secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n",
			"sinks[0].url", `sinks[0].url: "http://hooks.example.com/x" must be https (http is allowed only on loopback)`},
		{"http lookalike loopback", "sinks:\n  - {name: a, kind: slack, url: 'http://127.0.0.1.example.com/x'}\n",
			"sinks[0].url", `sinks[0].url: "http://127.0.0.1.example.com/..." must be https…`},
		{"ftp", "sinks:\n  - {name: a, kind: slack, url: 'ftp://h.example.com/x'}\n", "sinks[0].url", `sinks[0].url: "ftp://h.example.com/..." has scheme "ftp"…`},
		{"no host", "sinks:\n  - {name: a, kind: slack, url: 'https:///x'}\n", "sinks[0].url", `sinks[0].url: "https:///x" must be an absolute URL with a host`},
		{"relative url", "sinks:\n  - {name: a, kind: slack, url: '/hook'}\n", "sinks[0].url", `sinks[0].url: "/hook" must be an absolute URL with a host`},
		{"unparsable url", "sinks:\n  - {name: a, kind: slack, url: 'https://h.example.com/%zz'}\n", "sinks[0].url", "sinks[0].url: is not a valid URL: …"},
		{"missing secretEnv", "sinks:\n  - {name: a, kind: webhook, url: 'https://h.example.com'}\n",
			"sinks[0].secretEnv", "sinks[0].secretEnv: is required for kind webhook…"},
		{"empty secret", "sinks:\n  - {name: a, kind: webhook, url: 'https://h.example.com', secretEnv: EMPTY}\n",
			"sinks[0].secretEnv", "sinks[0].secretEnv: environment variable EMPTY is unset or empty; it must hold the webhook's HMAC secret"},
		{"unset secret", "sinks:\n  - {name: a, kind: webhook, url: 'https://h.example.com', secretEnv: NOT_SET}\n",
			"sinks[0].secretEnv", "sinks[0].secretEnv: environment variable NOT_SET is unset or empty…"},
		{"bad secretEnv name", "sinks:\n  - {name: a, kind: webhook, url: 'https://h.example.com', secretEnv: 'A-B'}\n",
			"sinks[0].secretEnv", `sinks[0].secretEnv: "A-B" is not an environment variable name`},
		{"secretEnv on slack", "sinks:\n  - {name: a, kind: slack, url: 'https://h.example.com', secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n",
			"sinks[0].secretEnv", "sinks[0].secretEnv: is not allowed for kind slack…"},
		{"secretEnv on forge", "sinks:\n  - {name: a, kind: forge, secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n",
			"sinks[0].secretEnv", "sinks[0].secretEnv: is not allowed for kind forge…"},
		{"duplicate name", "sinks:\n  - {name: a, kind: forge}\n  - {name: b, kind: forge}\n  - {name: a, kind: forge}\n",
			"sinks[2].name", `sinks[2].name: "a" is already the name of sinks[0]; names must be unique`},
		{"unknown event kind", "sinks:\n  - {name: a, kind: forge, events: [Ready, Exploded]}\n",
			"sinks[0].events[1]", `sinks[0].events[1]: unknown value "Exploded"; allowed: Failed, Ready, Drifted, RolloutBatch, AwaitingApproval, DependencyStale, Retrying, Expiring, UpgradePlanned`},
		{"repeated event", "sinks:\n  - {name: a, kind: forge, events: [Ready, Ready]}\n", "sinks[0].events[1]", `sinks[0].events[1]: "Ready" is listed twice`},
		{"events not a list", "sinks:\n  - {name: a, kind: forge, events: Ready}\n", "sinks[0].events", "sinks[0].events: must be a list of event kinds, got a string (line 2)"},
		{"bad tenant", "sinks:\n  - {name: a, kind: forge, tenants: [acme, Acme]}\n", "sinks[0].tenants[1]", `sinks[0].tenants[1]: "Acme" must be a DNS-1123 label…`},
		{"unknown sink field", "sinks:\n  - name: a\n    kind: forge\n    channel: '#ops'\n",
			"sinks[0].channel", "sinks[0].channel: unknown field (line 4); allowed: name, kind, url, secretEnv, tenants, events"},
		{"unknown top-level field", "sinks: []\nretries: 3\n", "retries", "retries: unknown field (line 2); allowed: sinks"},
		{"repeated key", "sinks:\n  - name: a\n    kind: forge\n    name: b\n", "sinks[0].name", "sinks[0].name: is set twice (lines 2 and 4)"},
		{"repeated top-level key", "sinks: []\nsinks: []\n", "sinks", "sinks: is set twice (lines 1 and 2)"},
		{"kind not a string", "sinks:\n  - {name: a, kind: [webhook]}\n", "sinks[0].kind", "sinks[0].kind: must be a string, got a list (line 2)"},
		{"sink not a mapping", "sinks:\n  - forge\n", "sinks[0]", "sinks[0]: must be a mapping with keys name, kind, url, secretEnv, tenants, events, got a string (line 2)"},
		{"sinks not a list", "sinks: {name: a}\n", "sinks", "sinks: must be a list of sinks, got a mapping (line 1)"},
		{"not a mapping", "- a\n", "yaml", "yaml: the notify config must be a mapping with the key sinks; got a list (line 1)"},
		{"syntax", "sinks: [\n", "yaml", "yaml: …"},
		{"two documents", "sinks: []\n---\nsinks: []\n", "yaml", "yaml: only one YAML document is allowed…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := configError(t, tt.doc, testEnv)
			fe, ok := ce.Field(tt.field)
			require.True(t, ok, "no error for %s in %v", tt.field, ce)
			if prefix, cut := strings.CutSuffix(tt.want, "…"); cut {
				assert.True(t, strings.HasPrefix(fe.String(), prefix), "got %q, want prefix %q", fe.String(), prefix)
			} else {
				assert.Equal(t, tt.want, fe.String())
			}
			assert.Contains(t, ce.Error(), fe.String())
			assert.NotContains(t, ce.Error(), testSecret)
		})
	}
}

// Every problem is reported at once, in document order, and none piles a "required" on a
// field already reported as wrong.
func TestParseListsEveryError(t *testing.T) {
	ce := configError(t, `
sinks:
  - name: a
    kind: webhook
    url: http://hooks.example.com/x
    secretEnv: EMPTY
  - name: a
    kind: pager
  - name: c
    kind: slack
`, testEnv)
	var fields []string
	for _, f := range ce.Errors {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"sinks[0].url", "sinks[0].secretEnv", "sinks[1].kind", "sinks[1].name", "sinks[2].url"}, fields)
	assert.True(t, strings.HasPrefix(ce.Error(), "invalid notify config: sinks[0].url: "), ce.Error())
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "notify.yaml")
	require.NoError(t, os.WriteFile(good, []byte(fullConfig), 0o600))
	cfg, err := Load(good, testEnv)
	require.NoError(t, err)
	assert.Len(t, cfg.Sinks, 4)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("sinks:\n  - {name: a, kind: pager}\n"), 0o600))
	_, err = Load(bad, testEnv)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, bad, ce.File)
	assert.Contains(t, err.Error(), "invalid notify config "+bad+": sinks[0].kind: ")

	_, err = Load(filepath.Join(dir, "missing.yaml"), testEnv)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// nil getenv reads the process environment.
	t.Setenv("NOTIFY_TEST_SECRET", "from-process-env")
	cfg, err = Parse([]byte("sinks:\n  - {name: a, kind: webhook, url: 'https://h.example.com', secretEnv: NOTIFY_TEST_SECRET}\n"), nil)
	require.NoError(t, err)
	assert.Equal(t, "from-process-env", string(cfg.Sinks[0].secret))
}

func TestMatch(t *testing.T) {
	cfg, err := Parse([]byte(fullConfig), testEnv)
	require.NoError(t, err)
	names := func(ev Event) []string {
		var out []string
		for _, s := range cfg.Match(ev) {
			out = append(out, s.Name)
		}
		return out
	}
	// ops: acme, Failed|Ready. chat: all tenants, not Ready. reviews: everything. local: globex|acme, all kinds.
	assert.Equal(t, []string{"ops", "chat", "reviews", "local"}, names(Event{Kind: KindFailed, Tenant: "acme"}))
	assert.Equal(t, []string{"ops", "reviews", "local"}, names(Event{Kind: KindReady, Tenant: "acme"}))
	assert.Equal(t, []string{"reviews", "local"}, names(Event{Kind: KindReady, Tenant: "globex"}))
	assert.Equal(t, []string{"chat", "reviews"}, names(Event{Kind: KindDrifted, Tenant: "initech"}))
	// The tenant comes from Instance when Tenant is empty.
	assert.Equal(t, []string{"ops", "reviews", "local"}, names(Event{Kind: KindReady, Instance: "acme/web"}))
	// A rollout across tenants has no tenant: only global sinks take it.
	assert.Equal(t, []string{"chat", "reviews"}, names(Event{Kind: KindRolloutBatch, Rollout: "r-1"}))

	var nilCfg *Config
	assert.Nil(t, nilCfg.Match(Event{Kind: KindFailed}))
}

func TestSecretNeverShown(t *testing.T) {
	cfg, err := Parse([]byte(fullConfig), testEnv)
	require.NoError(t, err)
	ops, chat := cfg.Sinks[0], cfg.Sinks[1]

	shown := []string{
		fmt.Sprint(ops), fmt.Sprintf("%v|%+v|%#v|%s|%q|%x|%d", ops, ops, ops, ops, ops, ops, ops),
		fmt.Sprint(&ops), fmt.Sprintf("%+v %#v", cfg, cfg), fmt.Sprint(cfg.Sinks),
	}
	js, err := json.Marshal(cfg)
	require.NoError(t, err)
	shown = append(shown, string(js))
	for _, s := range shown {
		assert.NotContains(t, s, testSecret)
		assert.NotContains(t, s, fmt.Sprintf("%x", testSecret))
		assert.NotContains(t, s, "XXXXSLACKTOKEN") // a Slack webhook's path is its credential
	}
	assert.Equal(t, `webhook sink "ops" (https://hooks.example.com/slipway, secret from $SLIPWAY_OPS_HOOK_SECRET, tenants acme, events Failed,Ready)`, ops.String())
	assert.Equal(t, `slack sink "chat" (https://hooks.slack.com/..., events Failed,Drifted,RolloutBatch,AwaitingApproval)`, chat.String())

	var back map[string]any
	require.NoError(t, json.Unmarshal(js, &back))
	first := back["Sinks"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"name": "ops", "kind": "webhook", "url": "https://hooks.example.com/slipway",
		"secretEnv": "SLIPWAY_OPS_HOOK_SECRET", "tenants": []any{"acme"}, "events": []any{"Failed", "Ready"},
	}, first)

	// Credentials in a URL stay out of errors too.
	ce := configError(t, "sinks:\n  - {name: a, kind: webhook, url: 'ftp://user:pw-in-url@h.example.com/x?token=tok-in-query', secretEnv: SLIPWAY_OPS_HOOK_SECRET}\n", testEnv)
	assert.NotContains(t, ce.Error(), "pw-in-url")
	assert.NotContains(t, ce.Error(), "tok-in-query")
}
