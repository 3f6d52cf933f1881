package packaging

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// Temporal's default membership ports (the server image's config template): below 32768, so
// they never collide with the ephemeral ports a container's outgoing connections take.
var temporalPorts = map[string]string{
	"FRONTEND_GRPC_PORT": "7233", "FRONTEND_MEMBERSHIP_PORT": "6933", "HISTORY_GRPC_PORT": "7234",
	"HISTORY_MEMBERSHIP_PORT": "6934", "MATCHING_GRPC_PORT": "7235", "MATCHING_MEMBERSHIP_PORT": "6935",
	"WORKER_GRPC_PORT": "7239", "WORKER_MEMBERSHIP_PORT": "6939", "FRONTEND_HTTP_PORT": "7243",
	"INTERNAL_FRONTEND_GRPC_PORT": "7236", "INTERNAL_FRONTEND_MEMBERSHIP_PORT": "6936", "INTERNAL_FRONTEND_HTTP_PORT": "7246",
}

// docker-compose.yml describes testsuite/production's topology and the chart's: two Temporal
// nodes on PostgreSQL with their schema from admin-tools, three stateless workers, the webhook,
// codec and API servers; every healthcheck dials what its process binds.
func TestComposeDescribesTheProductionTopology(t *testing.T) {
	c, err := LoadCompose()
	require.NoError(t, err)
	svc := func(name string) Service {
		t.Helper()
		s, ok := c.Services[name]
		require.True(t, ok, "docker-compose.yml has no service %s", name)
		return s
	}
	dependsOn := func(name, on, condition string) {
		t.Helper()
		d, ok := svc(name).DependsOn[on]
		if assert.True(t, ok, "%s does not wait for %s", name, on) {
			assert.Equal(t, condition, d.Condition, "%s waits for %s", name, on)
		}
	}

	// How many nodes and workers testsuite/production runs.
	nodes, workers := productionCounts(t)
	require.Equal(t, 2, nodes)
	require.Equal(t, 3, workers)

	// The schema comes from admin-tools' temporal-sql-tool; auto-setup (deprecated) is gone.
	for name, s := range c.Services {
		assert.NotContains(t, s.Image, "auto-setup", "%s uses the deprecated auto-setup image", name)
	}
	schema := svc("temporal-schema")
	assert.Contains(t, schema.Image, "temporalio/admin-tools:1.29.1")
	dependsOn("temporal-schema", "postgresql", "service_healthy")
	script, err := os.ReadFile(filepath.Join(Root(), "deploy", "temporal", "setup-schema.sh"))
	require.NoError(t, err)
	assert.Contains(t, strings.Join(schema.Entrypoint, " "), "setup-schema.sh")
	assert.Contains(t, string(script), "/etc/temporal/schema/postgresql/v12")

	// Temporal nodes: the server image, bound on every address (so 127.0.0.1 reaches the
	// frontend), each broadcasting its own fixed address, ports below the ephemeral range.
	seen := map[string]string{}
	for i := 1; i <= nodes; i++ {
		name := fmt.Sprintf("temporal-%d", i)
		n := svc(name)
		assert.Equal(t, "temporalio/server:1.29.1", n.Image, "keep in step with scripts/tools.sh temporal-server")
		dependsOn(name, "temporal-schema", "service_completed_successfully")
		assert.Equal(t, "0.0.0.0", n.Environment["BIND_ON_IP"], "%s: BIND_ON_IP", name)
		b := n.Environment["TEMPORAL_BROADCAST_ADDRESS"]
		require.NotNil(t, net.ParseIP(b), "%s: TEMPORAL_BROADCAST_ADDRESS %q is not an IP", name, b)
		assert.Equal(t, n.IPv4("slipway"), b, "%s broadcasts an address it does not have", name)
		assert.Empty(t, seen[b], "%s and %s broadcast one address", name, seen[b])
		seen[b] = name
		for env, def := range temporalPorts {
			p, err := strconv.Atoi(cmp(n.Environment[env], def))
			require.NoError(t, err, "%s: %s", name, env)
			assert.Less(t, p, 32768, "%s: %s is in the ephemeral port range", name, env)
		}
		frontend := cmp(n.Environment["FRONTEND_GRPC_PORT"], temporalPorts["FRONTEND_GRPC_PORT"])
		hc := strings.Join(n.Healthcheck.Test, " ")
		assert.Contains(t, hc, "--address 127.0.0.1:"+frontend, "%s's healthcheck dials another address than the frontend binds", name)
	}
	dependsOn("temporal-setup", "temporal-1", "service_healthy")

	// Workers: the production world's settings, telemetry on 9090 asked by the healthcheck,
	// a stop grace longer than the drain's, their own volumes.
	worldEnv := productionWorkerEnv(t)
	volumes := map[string]string{}
	for i := 1; i <= workers; i++ {
		name := fmt.Sprintf("slipway-worker-%d", i)
		w := svc(name)
		dependsOn(name, "temporal-setup", "service_completed_successfully")
		dependsOn(name, "postgresql", "service_healthy")
		for _, e := range worldEnv {
			assert.Contains(t, w.Environment, e, "%s lacks %s, which testsuite/production's workers have", name, e)
		}
		addr := w.Environment["TEMPORAL_ADDRESS"]
		host, _, err := net.SplitHostPort(addr)
		require.NoError(t, err, "%s: TEMPORAL_ADDRESS", name)
		assert.Contains(t, []string{"temporal-1", "temporal-2"}, host, "%s dials no Temporal node", name)
		checkHealthDialsListener(t, name, w, w.Environment["SLIPWAY_TELEMETRY_ADDR"], "/readyz")
		// The worker's longest stop: the grace, then up to 1.5 × the terraform grace + 10s for cut-short steps to report.
		grace := seconds(t, w.Environment["SLIPWAY_WORKER_GRACE"]) + seconds(t, w.Environment["SLIPWAY_TERRAFORM_STOP_GRACE"])*3/2 + 10
		assert.Greater(t, seconds(t, w.StopGracePeriod), grace, "%s: Docker would SIGKILL a draining worker", name)
		// Its own state volume, and the credentials for stacks read-only, outside the worker's own paths.
		require.Len(t, w.Volumes, 2)
		vol := strings.SplitN(w.Volumes[0], ":", 2)
		assert.Equal(t, "/var/lib/slipway", vol[1])
		assert.Empty(t, volumes[vol[0]], "%s shares its state volume with %s", name, volumes[vol[0]])
		volumes[vol[0]] = name
		assert.Equal(t, "./stack-credentials:/etc/slipway/stack-credentials:ro", w.Volumes[1], name)
		assert.Equal(t, "${SLIPWAY_CREDENTIALS_FILE:-}", w.Environment["SLIPWAY_CREDENTIALS_FILE"], name)
		for env, v := range w.Environment {
			if p := strings.TrimSuffix(v, "/"); strings.HasPrefix(p, "/") {
				assert.False(t, strings.HasPrefix("/etc/slipway/stack-credentials/", p+"/"),
					"%s: the file sources are inside %s=%s: the worker refuses them", name, env, v)
			}
		}
	}
	assert.NotEqual(t, svc("slipway-worker-1").Environment["TEMPORAL_ADDRESS"], svc("slipway-worker-2").Environment["TEMPORAL_ADDRESS"],
		"losing one Temporal node must leave workers polling")

	// The servers: tini as PID 1, the healthcheck dialling the --listen port, a stop grace
	// longer than --shutdown-grace.
	for _, name := range []string{"slipway-webhook", "slipway-codec-server", "slipway-server"} {
		s := svc(name)
		require.GreaterOrEqual(t, len(s.Entrypoint), 3, name)
		assert.Equal(t, []string{"/usr/bin/tini", "--"}, s.Entrypoint[:2], "%s: no init as PID 1", name)
		listen := flagValue(s.Entrypoint, "--listen")
		require.NotEmpty(t, listen, "%s: no --listen", name)
		checkHealthDialsListener(t, name, s, listen, "/readyz")
		assert.Greater(t, seconds(t, s.StopGracePeriod), seconds(t, flagValue(s.Entrypoint, "--shutdown-grace")), name)
	}
	assert.Contains(t, svc("slipway-server").Profiles, "server", "slipway server needs OIDC and TLS: opt-in")
	assert.Contains(t, svc("prometheus").Profiles, "metrics")

	// Every slipway setting compose gives is one the code reads, and one the chart gives too.
	chart := chartEnvNames(t)
	code := codeEnvNames(t)
	for name, s := range c.Services {
		if !strings.HasPrefix(name, "slipway-") {
			continue
		}
		for env := range s.Environment {
			if !code[env] {
				t.Errorf("%s sets %s, which no code reads", name, env)
			}
			if !chart[env] {
				t.Errorf("%s sets %s; the chart never does", name, env)
			}
		}
	}
}

// `docker-compose config` accepts the file, alone and with the insecure overlay, when the tool
// is installed (no engine needed); what it resolves has Temporal's authorization on, and off
// only with the overlay.
func TestComposeConfigValidates(t *testing.T) {
	bin, err := exec.LookPath("docker-compose")
	var pre []string
	if err != nil {
		if bin, err = exec.LookPath("docker"); err != nil || exec.Command(bin, "compose", "version").Run() != nil {
			t.Skip("neither docker-compose nor docker compose is installed (apt-get install docker-compose)")
		}
		pre = []string{"compose"}
	}
	config := func(profile string, args ...string) ([]byte, error) {
		cmd := exec.Command(bin, append(append(pre, args...), "config")...)
		cmd.Dir = Root()
		cmd.Env = append(os.Environ(), "COMPOSE_PROFILES="+profile)
		return cmd.CombinedOutput()
	}
	for _, files := range [][]string{nil, {"-f", "docker-compose.yml", "-f", insecureOverlay}} {
		for _, profile := range []string{"", "server", "metrics"} {
			out, err := config(profile, files...)
			require.NoError(t, err, "docker-compose %v config (profile %q): %s", files, profile, out)
			if profile != "server" {
				continue
			}
			var c Compose
			require.NoError(t, yaml.Unmarshal(out, &c), "%s", out)
			authorizer, client := "default", "slipway-server"
			if files != nil {
				authorizer, client = "", ""
			}
			assert.Equal(t, authorizer, c.Services["temporal-2"].Environment["TEMPORAL_AUTH_AUTHORIZER"], files)
			assert.Equal(t, client, c.Services["slipway-server"].Environment["SLIPWAY_TEMPORAL_CLIENT_ID"], files)
		}
	}
}

func checkHealthDialsListener(t *testing.T, name string, s Service, listen, path string) {
	t.Helper()
	host, port, err := net.SplitHostPort(listen)
	require.NoError(t, err, "%s listens on %q", name, listen)
	var target *url.URL
	for _, a := range s.Healthcheck.Test {
		if u, err := url.Parse(a); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			target = u
		}
	}
	require.NotNil(t, target, "%s has no HTTP healthcheck: %v", name, s.Healthcheck.Test)
	assert.Equal(t, port, target.Port(), "%s's healthcheck dials another port than it listens on", name)
	assert.Equal(t, path, target.Path, name)
	// 0.0.0.0 and the empty host accept loopback; otherwise the healthcheck must dial that host.
	if host != "0.0.0.0" && host != "" && host != "::" {
		assert.Equal(t, host, target.Hostname(), "%s's healthcheck dials another host than it binds", name)
	} else {
		assert.Equal(t, "127.0.0.1", target.Hostname(), name)
	}
}

// productionCounts reads how many Temporal nodes and workers testsuite/production starts.
func productionCounts(t *testing.T) (nodes, workers int) {
	t.Helper()
	dir := filepath.Join(Root(), "testsuite", "production")
	world, err := os.ReadFile(filepath.Join(dir, "world_test.go"))
	require.NoError(t, err)
	prod, err := os.ReadFile(filepath.Join(dir, "production_test.go"))
	require.NoError(t, err)
	n := regexp.MustCompile(`tc\.Options\(w\.pg, (\d+),`).FindSubmatch(world)
	w := regexp.MustCompile(`newWorld\(t, (\d+)\)`).FindSubmatch(prod)
	require.NotNil(t, n, "testsuite/production no longer says how many Temporal nodes it runs")
	require.NotNil(t, w, "testsuite/production no longer says how many workers it runs")
	nodes, _ = strconv.Atoi(string(n[1]))
	workers, _ = strconv.Atoi(string(w[1]))
	return nodes, workers
}

// productionWorkerEnv: the settings testsuite/production's workers get, but those only tests use.
func productionWorkerEnv(t *testing.T) []string {
	t.Helper()
	world, err := os.ReadFile(filepath.Join(Root(), "testsuite", "production", "world_test.go"))
	require.NoError(t, err)
	start := strings.Index(string(world), "func (w *world) start(")
	require.Positive(t, start)
	var names []string
	for _, m := range regexp.MustCompile(`"((?:SLIPWAY|TEMPORAL)_[A-Z_]+)=`).FindAllSubmatch(world[start:], -1) {
		n := string(m[1])
		// The test's own task queue, its provisioners' log and log level are the test's.
		if n == "SLIPWAY_TASK_QUEUE" || n == "SLIPWAY_TERRAFORM_SANDBOX_BINDS" || n == "SLIPWAY_LOG_LEVEL" {
			continue
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	require.GreaterOrEqual(t, len(names), 10, "the production world's worker settings: %v", names)
	return names
}

// chartEnvNames: every variable the chart sets in any container, with every option on.
func chartEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	manifest, err := Render(t, "slipway", append(ValuesFiles["production"],
		"--set", "webhook.githubSecretKey=github", "--set", "webhook.giteaSecretKey=gitea")...)
	require.NoError(t, err)
	objs, err := Parse(manifest)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, o := range objs {
		ctrs, _ := o.Get("spec", "template", "spec", "containers").([]any)
		for _, c := range ctrs {
			list, _ := Object(c.(map[string]any)).Get("env").([]any)
			for _, e := range list {
				names[e.(map[string]any)["name"].(string)] = true
			}
		}
	}
	require.NotEmpty(t, names)
	return names
}

func codeEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.temporal.io/sdk/contrib/envconfig").Output()
	require.NoError(t, err, "go list envconfig")
	names, err := EnvNamesInCode(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	require.True(t, names["TEMPORAL_ADDRESS"] && names["SLIPWAY_CODEC_KEY"], "the scan found too little: %d names", len(names))
	return names
}

func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

func seconds(t *testing.T, d string) float64 {
	t.Helper()
	v, err := time.ParseDuration(d)
	require.NoError(t, err, "duration %q", d)
	return v.Seconds()
}

func cmp(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
