package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func get(t *testing.T, h http.Handler, path string) (int, Report) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	var rep Report
	if path == "/readyz" {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&rep))
	}
	return resp.StatusCode, rep
}

func TestReadyzNamesTheFailingCheck(t *testing.T) {
	c := New()
	c.Add("temporal", func(context.Context) error { return nil })
	code, rep := get(t, c.Handler(), "/readyz")
	require.Equal(t, http.StatusOK, code)
	require.True(t, rep.Ready)
	require.Equal(t, "ok", rep.Checks["temporal"])

	c.Add("store", func(context.Context) error { return errors.New("connection refused") })
	code, rep = get(t, c.Handler(), "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, []string{"store"}, rep.Failing)
	require.Equal(t, "connection refused", rep.Checks["store"])
	require.Equal(t, "ok", rep.Checks["temporal"])

	code, _ = get(t, c.Handler(), "/healthz")
	require.Equal(t, http.StatusOK, code, "a failing dependency is no reason to restart the process")
}

func TestReadyzFailsOnceStopping(t *testing.T) {
	c := New()
	c.Add("temporal", func(context.Context) error { return nil })
	c.SetStopping()
	code, rep := get(t, c.Handler(), "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, []string{Stopping}, rep.Failing)
}

func TestReadyzBoundsAHungCheck(t *testing.T) {
	c := New()
	block := make(chan struct{})
	defer close(block)
	// A check that ignores its context must not hold the probe.
	c.Add("hung", func(context.Context) error { <-block; return nil })
	code, rep := get(t, c.Handler(), "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, []string{"hung"}, rep.Failing)
	require.Contains(t, rep.Checks["hung"], "deadline exceeded")
}
