package packaging

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// insecureOverlay is the compose opt-out that turns Temporal's authorization off.
var insecureOverlay = filepath.Join("deploy", "temporal", "insecure-no-authorization.yml")

// The chart refuses a Temporal connection without a credential, naming the values that give one
// and the explicit opt-out; with any credential, or the opt-out, it renders.
func TestChartRefusesTemporalWithoutCredential(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string
	}{
		{nil, "temporal.insecureNoAuthorization"},
		// A CA alone is TLS, not a credential.
		{[]string{"temporal.tls.enabled=true", "temporal.tls.existingSecret=temporal-tls"}, "temporal.insecureNoAuthorization"},
		{[]string{"temporal.insecureNoAuthorization=false"}, "temporal.insecureNoAuthorization"},
		{[]string{"temporal.auth.enabled=true"}, "temporal.auth.tokenURL"},
		{[]string{"temporal.auth.enabled=true", "temporal.auth.tokenURL=https://id.example.com/token", "temporal.auth.existingSecret="}, "temporal.auth.existingSecret"},
		{[]string{"temporal.auth.enabled=true", "temporal.auth.tokenURL=https://id.example.com/token", "temporal.auth.tokenSecret=tok"}, "temporal.auth.tokenSecret"},
		{[]string{"temporal.insecureNoAuthorization=yes"}, "/temporal/insecureNoAuthorization"},
	} {
		t.Run(strings.Join(c.set, ","), func(t *testing.T) {
			var args []string
			for _, s := range c.set {
				args = append(args, "--set", s)
			}
			out, err := Render(t, ns, args...)
			require.Error(t, err, "rendered without a Temporal credential: %v\n%s", c.set, out)
			assert.Contains(t, err.Error(), c.want, "the error does not name the value")
		})
	}
}

// Each credential reaches every component that dials Temporal (worker, webhook, server); the
// opt-out renders none.
func TestChartGivesEveryTemporalClientItsCredential(t *testing.T) {
	server := []string{"--set", "server.enabled=true", "--set", "server.tlsSecret=tls", "--set", "oidc.issuer=https://id.example.com"}
	for _, c := range []struct {
		name  string
		set   []string
		check func(t *testing.T, who string, env map[string]string, ctr, pod Object)
	}{
		{"client credentials", Credential, func(t *testing.T, who string, env map[string]string, ctr, _ Object) {
			assert.Equal(t, "https://id.example.com/oauth2/token", env["SLIPWAY_TEMPORAL_TOKEN_URL"], who)
			assert.Equal(t, "slipway-worker", env["SLIPWAY_TEMPORAL_CLIENT_ID"], who)
			assert.Equal(t, map[string]any{"name": "slipway-temporal-client", "key": "client-secret"},
				valueFrom(ctr, "SLIPWAY_TEMPORAL_CLIENT_SECRET"), "%s: the client secret is from the Secret", who)
		}},
		{"token file", []string{"--set", "temporal.auth.tokenSecret=temporal-token", "--set", "temporal.auth.tokenKey=jwt"},
			func(t *testing.T, who string, env map[string]string, ctr, pod Object) {
				assert.Equal(t, "/etc/slipway/temporal-token/jwt", env["SLIPWAY_TEMPORAL_TOKEN_FILE"], who)
				assert.NotContains(t, env, "SLIPWAY_TEMPORAL_TOKEN_URL", who)
				m := mountAt(ctr, "/etc/slipway/temporal-token")
				require.NotNil(t, m, "%s: the token is not mounted", who)
				assert.Equal(t, true, m.Get("readOnly"), who)
				v := volumeNamed(pod, str(m.Get("name")))
				require.NotNil(t, v, who)
				assert.Equal(t, "temporal-token", v.Get("secret", "secretName"), who)
				assert.Equal(t, "jwt", v.Get("secret", "items", 0, "key"), who)
			}},
		{"client certificate", []string{"--set", "temporal.tls.enabled=true", "--set", "temporal.tls.existingSecret=temporal-tls",
			"--set", "temporal.tls.certKey=tls.crt", "--set", "temporal.tls.keyKey=tls.key"},
			func(t *testing.T, who string, env map[string]string, _, _ Object) {
				assert.Equal(t, "/etc/slipway/temporal-tls/tls.crt", env["TEMPORAL_TLS_CLIENT_CERT_PATH"], who)
				assert.Equal(t, "/etc/slipway/temporal-tls/tls.key", env["TEMPORAL_TLS_CLIENT_KEY_PATH"], who)
			}},
		{"insecure", []string{"--set", "temporal.insecureNoAuthorization=true"},
			func(t *testing.T, who string, env map[string]string, _, _ Object) {
				for name := range env {
					assert.False(t, strings.HasPrefix(name, "SLIPWAY_TEMPORAL_TOKEN") || strings.HasPrefix(name, "SLIPWAY_TEMPORAL_CLIENT"),
						"%s: %s without a credential asked for", who, name)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			manifest, err := Render(t, ns, append(append([]string{}, c.set...), server...)...)
			require.NoError(t, err)
			objs, err := Parse(manifest)
			require.NoError(t, err)
			var clients []string
			for _, o := range objs {
				if o.Kind() != "Deployment" {
					continue
				}
				pod := Object(o.Get("spec", "template", "spec").(map[string]any))
				ctr := Object(pod.Get("containers", 0).(map[string]any))
				env := envOf(t, ctr)
				if _, ok := env["TEMPORAL_ADDRESS"]; !ok {
					continue
				}
				clients = append(clients, o.Name())
				c.check(t, o.Name(), env, ctr, pod)
			}
			assert.ElementsMatch(t, []string{"slipway-worker", "slipway-webhook", "slipway-server"}, clients)
		})
	}
}

// docker-compose.yml runs Temporal with its authorization on: the JWT authorizer on every node,
// the internal frontend (admin for every caller) only for the cluster and its setup, the UI's
// sign-in, and client credentials for every slipway component, each its own client.
func TestComposeTurnsTemporalAuthorizationOn(t *testing.T) {
	c, err := LoadCompose()
	require.NoError(t, err)
	nodes, _ := productionCounts(t)
	for i := 1; i <= nodes; i++ {
		name := fmt.Sprintf("temporal-%d", i)
		e := c.Services[name].Environment
		assert.Equal(t, "default", e["TEMPORAL_AUTH_AUTHORIZER"], "%s: the authorizer is off", name)
		assert.Equal(t, "default", e["TEMPORAL_AUTH_CLAIM_MAPPER"], name)
		assert.Equal(t, "${SLIPWAY_OIDC_JWKS_URL:-}", e["TEMPORAL_JWT_KEY_SOURCE1"], name)
		assert.Equal(t, "true", e["USE_INTERNAL_FRONTEND"], name)
		assert.Contains(t, strings.Split(e["SERVICES"], ":"), "internal-frontend", name)
		assert.Equal(t, name+":7236", e["TEMPORAL_ADDRESS"], "%s: its own tools use the internal frontend", name)
	}
	assert.Equal(t, "temporal-1:7236", c.Services["temporal-setup"].Environment["TEMPORAL_ADDRESS"],
		"the namespace and search attributes are admin calls: through the internal frontend")
	assert.Equal(t, "true", c.Services["temporal-ui"].Environment["TEMPORAL_AUTH_ENABLED"], "people sign in to the UI")

	ids := map[string]string{}
	for name, s := range c.Services {
		for _, p := range s.Ports {
			assert.NotContains(t, p, "7236", "%s publishes the internal frontend, which makes every caller admin", name)
		}
		addr, ok := s.Environment["TEMPORAL_ADDRESS"]
		if !ok || !strings.HasPrefix(name, "slipway-") {
			continue
		}
		assert.True(t, strings.HasSuffix(addr, ":7233"), "%s dials %s, not the frontend", name, addr)
		e := s.Environment
		assert.Equal(t, "${SLIPWAY_TEMPORAL_TOKEN_URL:-}", e["SLIPWAY_TEMPORAL_TOKEN_URL"], name)
		assert.NotEmpty(t, e["SLIPWAY_TEMPORAL_CLIENT_ID"], name)
		assert.Regexp(t, `^\$\{SLIPWAY_[A-Z]+_CLIENT_SECRET:-\}$`, e["SLIPWAY_TEMPORAL_CLIENT_SECRET"], name)
		assert.Equal(t, "false", e["TEMPORAL_TLS"], "%s: a bearer token to the plaintext compose network", name)
		if !strings.HasPrefix(name, "slipway-worker-") {
			assert.Empty(t, ids[e["SLIPWAY_TEMPORAL_CLIENT_ID"]], "%s and %s share a client", name, ids[e["SLIPWAY_TEMPORAL_CLIENT_ID"]])
		}
		ids[e["SLIPWAY_TEMPORAL_CLIENT_ID"]] = name
	}
	assert.Len(t, ids, 3, "a client each for the workers, the webhook and the API server: %v", ids)
}

// The opt-out overlay turns off what docker-compose.yml turns on, and its header says what
// anyone reaching the frontend may then do.
func TestComposeInsecureOverlayTurnsAuthorizationOff(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(Root(), insecureOverlay))
	require.NoError(t, err)
	var overlay Compose
	require.NoError(t, yaml.Unmarshal(data, &overlay))
	base, err := LoadCompose()
	require.NoError(t, err)
	for name, s := range base.Services {
		o := overlay.Services[name].Environment
		if s.Environment["TEMPORAL_AUTH_AUTHORIZER"] != "" {
			assert.Equal(t, map[string]string{"TEMPORAL_AUTH_AUTHORIZER": "", "TEMPORAL_AUTH_CLAIM_MAPPER": ""}, o, name)
		}
		if _, ok := s.Environment["SLIPWAY_TEMPORAL_CLIENT_ID"]; ok {
			assert.Equal(t, map[string]string{"SLIPWAY_TEMPORAL_TOKEN_URL": "", "SLIPWAY_TEMPORAL_CLIENT_ID": "",
				"SLIPWAY_TEMPORAL_CLIENT_SECRET": ""}, o, "%s keeps a credential the server would not check", name)
		}
	}
	assert.Equal(t, "false", overlay.Services["temporal-ui"].Environment["TEMPORAL_AUTH_ENABLED"])
	header := strings.Join(strings.Fields(strings.ReplaceAll(string(data[:strings.Index(string(data), "services:")]), "#", "")), " ")
	for _, exposed := range []string{"INSECURE", "start, signal, update, reset, cancel and terminate any workflow",
		"copy a pipeline's start event", "read every history", "docs/production.md"} {
		assert.Contains(t, header, exposed, "the overlay's header does not say it")
	}
}

func valueFrom(ctr Object, name string) any {
	for _, e := range ctr.Get("env").([]any) {
		if e.(map[string]any)["name"] == name {
			return Object(e.(map[string]any)).Get("valueFrom", "secretKeyRef")
		}
	}
	return nil
}

func mountAt(ctr Object, path string) Object {
	for _, m := range ctr.Get("volumeMounts").([]any) {
		if m.(map[string]any)["mountPath"] == path {
			return Object(m.(map[string]any))
		}
	}
	return nil
}

func volumeNamed(pod Object, name string) Object {
	for _, v := range pod.Get("volumes").([]any) {
		if v.(map[string]any)["name"] == name {
			return Object(v.(map[string]any))
		}
	}
	return nil
}
