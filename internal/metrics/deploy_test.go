package metrics

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/health"
)

const deployDir = "../../deploy"

// metricName finds the metric names a PromQL expression uses.
var metricName = regexp.MustCompile(`\b(?:slipway|temporal)_[a-z_]+\b`)

// DeployQueries are the PromQL expressions of the dashboard and the alert rules.
func deployQueries(t testing.TB) []string {
	t.Helper()
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	b, err := os.ReadFile(filepath.Join(deployDir, "grafana", "slipway.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &dash))
	var exprs []string
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert, Expr string
			}
		}
	}
	b, err = os.ReadFile(filepath.Join(deployDir, "prometheus", "alerts.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &rules))
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	return exprs
}

// DeployMetricNames are the metric families the dashboard and alerts read, histogram series
// folded into their family.
func DeployMetricNames(t testing.TB) []string {
	seen := map[string]bool{}
	for _, e := range deployQueries(t) {
		for _, n := range metricName.FindAllString(e, -1) {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				if strings.HasSuffix(n, "_seconds"+s) {
					n = strings.TrimSuffix(n, s)
				}
			}
			seen[n] = true
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestDashboardAndAlertsReadOnlyMetricsSlipwayExposes(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	m.Mux(nilChecker())
	exercise(t, m)
	names := exposed(t, m)
	var slipway int
	for _, n := range DeployMetricNames(t) {
		if strings.HasPrefix(n, "slipway_") {
			slipway++
			require.True(t, names[n], "deploy/ queries %s, which slipway does not expose", n)
		}
	}
	require.Positive(t, slipway)
	// temporal_* names are the SDK's: the Prometheus e2e checks them against a real worker's scrape.
}

// promtool is Debian's prometheus package's checker; without it the test skips, unless
// SLIPWAY_REQUIRE_PROMETHEUS=1 (CI) makes a missing binary a failure.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_PROMETHEUS") == "1" {
			t.Fatalf("promtool not found and SLIPWAY_REQUIRE_PROMETHEUS=1: apt-get install prometheus (scripts/apt-deps.sh)")
		}
		t.Skip("promtool not found (Debian package prometheus)")
	}
	return p
}

func TestAlertRulesAndScrapeConfigPassPromtool(t *testing.T) {
	bin := promtool(t)
	for _, args := range [][]string{
		{"check", "rules", filepath.Join(deployDir, "prometheus", "alerts.yml")},
		{"check", "config", filepath.Join(deployDir, "prometheus", "prometheus.yml")},
		{"test", "rules", "testdata/alerts_test.yml"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "promtool %s:\n%s", strings.Join(args, " "), out)
	}
}

func nilChecker() *health.Checker { return health.New() }
