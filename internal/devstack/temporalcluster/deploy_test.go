package temporalcluster

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

// composeFile is docker-compose.yml, which turns the server's authorization on.
const composeFile = "../../../docker-compose.yml"

// composeEnv is each service's environment in a compose file (anchors and merge keys resolved).
func composeEnv(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(data, &doc), path)
	out := map[string]map[string]string{}
	for name, svc := range doc.Services {
		out[name] = svc.Environment
	}
	return out
}

// docker-compose.yml turns on what the harness turns on (the same authorizer, claim mapper
// and permissions claim, an internal frontend), through variables the server image's config
// template of this release really reads.
func TestComposeAuthorizationMatchesTheHarness(t *testing.T) {
	env := composeEnv(t, composeFile)
	want := (&Authorization{JWKSURL: "https://idp.example.com/jwks"})
	want, err := want.resolve("Options")
	require.NoError(t, err)
	for _, node := range []string{"temporal-1", "temporal-2"} {
		e := env[node]
		require.NotNil(t, e, node)
		assert.Equal(t, "default", e["TEMPORAL_AUTH_AUTHORIZER"], node)
		assert.Equal(t, "default", e["TEMPORAL_AUTH_CLAIM_MAPPER"], node)
		assert.Equal(t, want.PermissionsClaimName, e["TEMPORAL_JWT_PERMISSIONS_CLAIM"], node)
		assert.Equal(t, "1m", e["TEMPORAL_JWT_KEY_REFRESH"], node)
		assert.Contains(t, e["TEMPORAL_JWT_KEY_SOURCE1"], "SLIPWAY_OIDC_JWKS_URL", node)
		assert.Equal(t, "true", e["USE_INTERNAL_FRONTEND"], node)
		assert.Equal(t, strings.Join(services, ":"), e["SERVICES"], node)
		assert.Contains(t, e["TEMPORAL_ADDRESS"], ":7236", "%s: admin setup through the internal frontend", node)
	}
	assert.Equal(t, "temporal-1:7236", env["temporal-setup"]["TEMPORAL_ADDRESS"], "search attributes are an admin call")
	for _, svc := range []string{"slipway-worker-1", "slipway-worker-2", "slipway-worker-3", "slipway-webhook"} {
		e := env[svc]
		require.NotNil(t, e, svc)
		for _, v := range []string{client.EnvTokenURL, client.EnvClientID, client.EnvClientSecret} {
			assert.NotEmpty(t, e[v], "%s: %s", svc, v)
		}
		assert.Equal(t, "false", e["TEMPORAL_TLS"], "%s: a bearer token to a plaintext frontend", svc)
	}
	assert.Equal(t, "slipway-webhook", env["slipway-webhook"][client.EnvClientID])

	mod, err := localdirs.ModuleDir(serverModule, ServerVersion)
	if err != nil {
		t.Skipf("server module not in the module cache: %v", err)
	}
	tmpl, err := os.ReadFile(filepath.Join(mod, "docker", "config_template.yaml"))
	require.NoError(t, err)
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`\.Env\.([A-Z0-9_]+)`).FindAllStringSubmatch(string(tmpl), -1) {
		read[m[1]] = true
	}
	for name := range env["temporal-1"] {
		if strings.HasPrefix(name, "TEMPORAL_AUTH_") || strings.HasPrefix(name, "TEMPORAL_JWT_") || name == "USE_INTERNAL_FRONTEND" {
			assert.True(t, read[name], "%s is not read by %s's docker/config_template.yaml", name, ServerVersion)
		}
	}
}
