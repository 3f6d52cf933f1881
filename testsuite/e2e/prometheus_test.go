package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/freeport"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/metrics"
	"github.com/slipway-dev/slipway/testsuite"
)

// Debian's prometheus scrapes the real worker binary (SLIPWAY_TELEMETRY_ADDR) and a
// `slipway webhook serve` during a create and a deploy; the test reads slipway's metrics and
// the Temporal SDK's through Prometheus's HTTP API.
func TestPrometheusScrapesAWorkerAndAWebhookServerDuringALifecycle(t *testing.T) {
	promBin := requirePrometheus(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	telemetry := freeAddr(t)
	w := startTelemetryWorker(t, e, telemetry)

	// The worker is ready once it polls and reaches Temporal and its state dir.
	readyz := "http://" + telemetry + "/readyz"
	waitFor(t, "the worker's /readyz", func() bool {
		require.NoError(t, w.Exited(), proc.LogTail(w.LogPath))
		resp, err := http.Get(readyz)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	rep := getReport(t, readyz)
	require.Equal(t, map[string]string{"temporal": "ok", "pollers": "ok", "store": "ok"}, rep.Checks)

	webhookURL := startWebhookServer(t)
	// A delivery with a bad signature is refused and counted.
	req, err := http.NewRequest(http.MethodPost, webhookURL+"/github", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", "forged-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	// The webhook server's probes answer ahead of its own routing.
	require.Equal(t, http.StatusOK, getReport(t, webhookURL+"/readyz").status)

	prom := startPrometheus(t, promBin, map[string]string{"slipway-worker": telemetry, "slipway-webhook": strings.TrimPrefix(webhookURL, "http://")})

	e.MustCLI(0, "create", "prom/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "prom/web", "--wait")

	// Counters the pipelines emitted, read back through Prometheus once it has scraped them.
	for query, want := range map[string]float64{
		`sum(slipway_operations_started_total{job="slipway-worker",kind="deploy",stack="example"})`:                         1,
		`sum(slipway_operations_finished_total{job="slipway-worker",kind="deploy",outcome="succeeded"})`:                    1,
		`sum(slipway_operations_finished_total{job="slipway-worker",kind="provision",outcome="succeeded"})`:                 1,
		fmt.Sprintf(`sum(slipway_step_duration_seconds_count{job="slipway-worker",op="deploy",step=%q})`, contract.TFApply): 1,
		// The Temporal SDK's own: this worker's task queue ran exactly one deploy pipeline.
		`sum(temporal_workflow_completed_total{job="slipway-worker",workflow_type="DeployPipeline"})`:   1,
		`sum(slipway_webhook_deliveries_total{job="slipway-webhook",forge="github",outcome="refused"})`: 1,
	} {
		waitFor(t, query, func() bool { v, ok := prom.value(t, query); return ok && v == want })
	}
	// The fleet gauges count visibility (the dev server is shared, so at least this instance).
	waitFor(t, "slipway_instances{state=Deployed}", func() bool {
		v, ok := prom.value(t, `max(slipway_instances{job="slipway-worker",state="Deployed"})`)
		return ok && v >= 1
	})
	v, ok := prom.value(t, `sum(temporal_activity_execution_latency_seconds_count{job="slipway-worker",activity_type="TerraformApply"})`)
	require.True(t, ok)
	require.GreaterOrEqual(t, v, 1.0)
	v, ok = prom.value(t, `min(slipway_ready)`)
	require.True(t, ok)
	require.Equal(t, 1.0, v, "both processes ready")

	// Prometheus loaded deploy/'s alert rules and evaluates each of them without error.
	waitFor(t, "every alert rule evaluated", func() bool { return prom.rulesHealthy(t) })

	// Every metric deploy/'s dashboard and alerts read is one these processes expose, but
	// those that need an event this lifecycle has none of.
	dash, err := os.ReadFile("../../deploy/grafana/slipway.json")
	require.NoError(t, err)
	alerts, err := os.ReadFile("../../deploy/prometheus/alerts.yml")
	require.NoError(t, err)
	names, err := metrics.QueriedNames(dash, alerts)
	require.NoError(t, err)
	absent := map[string]string{
		"slipway_observer_sweep_age_seconds": "no deployer observer runs with the deployer none",
		"slipway_fleet_refresh_errors_total": "no visibility count failed",
		"temporal_workflow_failed_total":     "no workflow failed",
	}
	for _, n := range names {
		if _, skip := absent[n]; skip {
			continue
		}
		v, ok := prom.value(t, fmt.Sprintf(`count({__name__=%q})`, promSeries(n)))
		require.True(t, ok && v > 0, "deploy/ queries %s, which Prometheus never scraped", n)
	}
}

// promSeries is a series name of family n (a histogram's are its _count).
func promSeries(n string) string {
	if strings.HasSuffix(n, "_seconds") && n != "slipway_observer_sweep_age_seconds" {
		return n + "_count"
	}
	return n
}

type readyReport struct {
	health.Report
	status int
}

func getReport(t *testing.T, u string) readyReport {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	var r readyReport
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r.Report))
	r.status = resp.StatusCode
	return r
}

func requirePrometheus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal("prometheus not found and SLIPWAY_REQUIRE_PROMETHEUS=1: apt-get install prometheus (scripts/apt-deps.sh)")
		}
		t.Skip("prometheus not found (Debian package prometheus)")
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := freeport.Get()
	require.NoError(t, err)
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// startTelemetryWorker runs the real slipway-worker with its telemetry listener on addr.
func startTelemetryWorker(t *testing.T, e *testsuite.Env, addr string) *proc.Process {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "slipway-worker")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker").CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue,
		"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+e.StateDir, "SLIPWAY_DEPLOYER=none",
		"SLIPWAY_TELEMETRY_ADDR="+addr, "SLIPWAY_METRICS_FLEET_INTERVAL=1s")
	p, err := proc.Start("worker", cmd, filepath.Join(dir, "worker.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// startWebhookServer runs `slipway webhook serve` in-process until the test ends.
func startWebhookServer(t *testing.T) string {
	t.Helper()
	t.Setenv("SLIPWAY_WEBHOOK_GITHUB_SECRET", "s3cret")
	t.Setenv("SLIPWAY_FORGE", "github")
	t.Setenv("SLIPWAY_FORGE_REPO", "acme/gitops")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"webhook", "serve", "--listen", "127.0.0.1:0"}, cli.Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	var u string
	for u == "" && sc.Scan() {
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			u = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.NotEmpty(t, u, "stderr: %s", errb.String())
	return u
}

type prometheus struct{ url string }

// startPrometheus runs Debian's prometheus on loopback with its own storage, scraping each
// job's target every second and loading deploy/'s alert rules.
func startPrometheus(t *testing.T, bin string, jobs map[string]string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	rules, err := filepath.Abs("../../deploy/prometheus/alerts.yml")
	require.NoError(t, err)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - %s\nscrape_configs:\n", rules)
	for job, target := range jobs {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    static_configs:\n      - targets: [%q]\n", job, target)
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg.String()), 0o600))
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	p, err := proc.Start("prometheus", cmd, filepath.Join(dir, "prometheus.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	pr := &prometheus{url: "http://" + addr}
	waitFor(t, "prometheus to scrape both targets", func() bool {
		require.NoError(t, p.Exited(), proc.LogTail(p.LogPath))
		v, ok := pr.value(t, `count(up == 1)`)
		return ok && v == float64(len(jobs))
	})
	return pr
}

// value runs an instant query; ok is false when it returns no sample.
func (p *prometheus) value(t *testing.T, query string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		return 0, false // still starting: it answers "Service Unavailable" as text until ready (seen in CI)
	}
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "success", body.Status, "%s: %s", query, body.Error)
	if len(body.Data.Result) == 0 {
		return 0, false
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v, true
}

// rulesHealthy reports whether every loaded rule has been evaluated without error; it fails the
// test on a rule that errs.
func (p *prometheus) rulesHealthy(t *testing.T) bool {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/rules")
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, LastError string
				}
			}
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	n := 0
	for _, g := range body.Data.Groups {
		for _, r := range g.Rules {
			require.NotEqual(t, "err", r.Health, "%s: %s", r.Name, r.LastError)
			if r.Health != "ok" {
				return false
			}
			n++
		}
	}
	require.Positive(t, n, "no rules loaded")
	return true
}
