package packaging

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dockerIgnore matches paths as Docker's builder does (moby/patternmatcher): patterns are
// anchored at the context root, `*` stays within a path element, `**` spans any, `!` re-includes,
// the last matching pattern wins, and a pattern matching a directory excludes what is under it.
type dockerIgnore []struct {
	re     *regexp.Regexp
	negate bool
}

func loadDockerIgnore(t *testing.T) dockerIgnore {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Root(), ".dockerignore"))
	require.NoError(t, err)
	var d dockerIgnore
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := strings.HasPrefix(line, "!")
		line = filepath.Clean(strings.TrimPrefix(strings.TrimPrefix(line, "!"), "/"))
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case strings.HasPrefix(line[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(line[i:], "**"):
				re.WriteString(".*")
				i++
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		d = append(d, struct {
			re     *regexp.Regexp
			negate bool
		}{regexp.MustCompile(re.String()), neg})
	}
	return d
}

// excluded says whether path (relative to the context, slash-separated) stays out of the context.
func (d dockerIgnore) excluded(path string) bool {
	out := false
	parts := strings.Split(path, "/")
	for _, p := range d {
		for i := len(parts); i > 0; i-- {
			if p.re.MatchString(strings.Join(parts[:i], "/")) {
				out = !p.negate
				break
			}
		}
	}
	return out
}

// The secrets the docs tell users to create beside docker-compose.yml never enter the image's
// build context (nor key and token files anywhere); the sources the build needs do.
func TestDockerignoreKeepsSecretsOutOfTheBuildContext(t *testing.T) {
	d := loadDockerIgnore(t)
	c, err := LoadCompose()
	require.NoError(t, err)
	compose, err := os.ReadFile(filepath.Join(Root(), "docker-compose.yml"))
	require.NoError(t, err)

	// The names the docs give: compose's secret files, and .env.
	secrets := []string{".env"}
	require.Contains(t, string(compose), "an .env file beside this one")
	for name, s := range c.Secrets {
		m := regexp.MustCompile(`:-\./([^}]+)\}$`).FindStringSubmatch(s.File)
		require.NotNil(t, m, "secret %s: no default file name in %q", name, s.File)
		secrets = append(secrets, m[1])
	}
	require.Contains(t, secrets, "codec-auth-token")
	// What else a user or `slipway dev` leaves around: keys, kubeconfigs, state, VCS data.
	secrets = append(secrets, ".env.local", "prod.env", "codec.keys", "attest.key", "state/attest.key", "deploy/tls/server.key",
		"certs/ca.pem", "kubeconfig", "clusters/prod.kubeconfig", "github-token", "ops/forge.token", ".git/config",
		"bin/slipway-worker", "state/codec.keys", "examples/x/.terraform/providers/p", "terraform.tfstate",
		"stack-credentials/credentials.yaml", "stack-credentials/dns.json")
	for _, p := range secrets {
		assert.True(t, d.excluded(p), "%s would be sent to the image build", p)
	}
	// The build needs every Go source, go.mod and embedded files (a token-named source included).
	for _, p := range []string{"go.mod", "go.sum", "worker/main.go", "starter/main.go", "internal/identity/tokens.go",
		"internal/cli/temporal_token.go", "internal/devstack/argostack/testdata/argocd-config.yaml", "examples/embed.go", "Dockerfile"} {
		assert.False(t, d.excluded(p), "%s is kept out of the build, which needs it", p)
	}
}

// The image runs tini as PID 1 and sets the version at link time.
func TestDockerfileRunsTiniAndStampsTheVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(Root(), "Dockerfile"))
	require.NoError(t, err)
	df := string(data)
	assert.Contains(t, df, `ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/slipway-worker"]`)
	assert.Regexp(t, `apt-get install[^\n]* tini`, df, "tini comes from Debian")
	assert.Contains(t, df, "ARG VERSION")
	assert.Contains(t, df, "-X github.com/slipway-dev/slipway/internal/version.Version=${VERSION}")
	assert.Regexp(t, `(?m)^USER 10001`, df, "a numeric uid, so Kubernetes can check runAsNonRoot")
}
