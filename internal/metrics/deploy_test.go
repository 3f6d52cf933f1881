package metrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/health"
)

const deployDir = "../../deploy"

// deployNames are the metric families deploy/'s dashboard and alerts read.
func deployNames(t testing.TB) []string {
	t.Helper()
	dash, err := os.ReadFile(filepath.Join(deployDir, "grafana", "slipway.json"))
	require.NoError(t, err)
	alerts, err := os.ReadFile(filepath.Join(deployDir, "prometheus", "alerts.yml"))
	require.NoError(t, err)
	names, err := QueriedNames(dash, alerts)
	require.NoError(t, err)
	return names
}

func TestDashboardAndAlertsReadOnlyMetricsSlipwayExposes(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	m.Mux(nilChecker())
	exercise(t, m)
	names := exposed(t, m)
	var slipway int
	for _, n := range deployNames(t) {
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
