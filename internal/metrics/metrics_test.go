package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/health"
)

// exercise records one of every slipway instrument, the workflows' ones through the SDK
// handler with the names and tags the pipeline gives them.
func exercise(t *testing.T, m *Metrics) {
	t.Helper()
	h := m.Temporal().WithTags(map[string]string{"kind": "deploy", "stack": "example"})
	h.Counter(OperationsStarted).Inc(1)
	h.WithTags(map[string]string{"outcome": "succeeded"}).Counter(OperationsFinished).Inc(1)
	m.Temporal().WithTags(map[string]string{"op": "deploy", "step": "TerraformApply", "outcome": "done"}).Timer(StepDuration).Record(3 * time.Second)
	m.WebhookDelivery("gitea", "refused")
	m.refreshErrors.Add(context.Background(), 1)
	m.SetFleet(FleetCounts{At: time.Now(), States: map[string]int64{"Deployed": 3}, Ready: map[string]int64{"True": 2, "False": 1},
		ApprovalsWaiting: 1, LastSweep: time.Now().Add(-time.Minute), Releases: map[ReleaseKey]int64{{Stack: "example", Release: "1.5.0", Ready: "True"}: 2}})
}

// exposed lists the metric family names the registry gathers.
func exposed(t *testing.T, m *Metrics) map[string]bool {
	t.Helper()
	fams, err := m.Registry().Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
	}
	return names
}

func scrape(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestEveryInstrumentIsExposedUnderItsPrometheusName(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	hc := health.New()
	mux := m.Mux(hc)
	exercise(t, m)
	names := exposed(t, m)
	var list []string
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	for _, want := range ExportedNames {
		require.True(t, names[want], "%s not exposed; exposed: %v", want, list)
	}
	code, body := scrape(t, mux, "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `slipway_instances{state="Deployed"} 3`)
	require.Contains(t, body, `slipway_operations_finished_total{kind="deploy",outcome="succeeded",stack="example"} 1`)
	require.Contains(t, body, `slipway_step_duration_seconds_bucket{op="deploy",outcome="done",step="TerraformApply",le="5"} 1`)
	require.Contains(t, body, `slipway_stack_release_instances{ready="True",release="1.5.0",stack="example"} 2`)
	require.Contains(t, body, `slipway_ready 1`)
	require.Contains(t, body, `slipway_build_info{commit=`)

	hc.SetStopping()
	_, body = scrape(t, mux, "/metrics")
	require.Contains(t, body, `slipway_ready 0`, "the metric follows readiness")
	code, _ = scrape(t, mux, "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
}

func TestFrontServesTelemetryAheadOfTheApplication(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	// The application refuses everything, as a Host check or auth would refuse a probe by pod IP.
	app := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusForbidden) })
	h := Front(m.Mux(health.New()), app)
	for _, p := range Paths {
		code, _ := scrape(t, h, p)
		require.Equal(t, http.StatusOK, code, p)
	}
	code, _ := scrape(t, h, "/metrics/../v1/whoami")
	require.Equal(t, http.StatusForbidden, code)
	code, _ = scrape(t, h, "/metricsx")
	require.Equal(t, http.StatusForbidden, code, "only the exact paths bypass the application")
}

func TestFleetWatchKeepsTheLastCountsWhenACountFails(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.WatchFleet(ctx, func(context.Context) (FleetCounts, error) {
			calls++
			if calls == 1 {
				return FleetCounts{At: time.Now(), States: map[string]int64{"Deployed": 7}}, nil
			}
			cancel()
			return FleetCounts{}, context.DeadlineExceeded
		}, time.Millisecond)
	}()
	<-done
	_, body := scrape(t, m.Handler(), "/metrics")
	require.Contains(t, body, `slipway_instances{state="Deployed"} 7`)
	require.False(t, strings.Contains(body, "slipway_fleet_refresh_errors_total 1"), "a count cut by the stop is no error")
}

type admitting struct{ http.Handler }

func (admitting) Admit(r *http.Request) (int, error) { return http.StatusUnauthorized, io.EOF }

func TestFrontKeepsTheApplicationsAdmitForItsOwnPaths(t *testing.T) {
	m, err := New("slipway-test")
	require.NoError(t, err)
	h := Front(m.Mux(health.New()), admitting{http.NotFoundHandler()})
	a, ok := h.(interface {
		Admit(*http.Request) (int, error)
	})
	require.True(t, ok, "the server must still refuse from the headers before reading a body")
	code, _ := a.Admit(httptest.NewRequest(http.MethodPost, "/github", nil))
	require.Equal(t, http.StatusUnauthorized, code)
	code, err = a.Admit(httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.NoError(t, err)
	require.Zero(t, code)
}
