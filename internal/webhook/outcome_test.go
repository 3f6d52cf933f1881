package webhook

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each request is counted by forge and outcome, and a client choosing its own paths cannot grow
// the metric's labels: every path that is no endpoint counts under "unknown".
func TestDeliveriesAreCountedWithBoundedLabels(t *testing.T) {
	var mu sync.Mutex
	counts := map[string]int{}
	s, _ := newServer(t, Options{Delivered: func(forge, outcome string) {
		mu.Lock()
		defer mu.Unlock()
		counts[forge+"/"+outcome]++
	}})
	code, _ := serve(s, githubRequest("push", "m-1", []byte(pushBody), true))
	require.Equal(t, http.StatusAccepted, code)
	code, _ = serve(s, githubRequest("push", "m-1", []byte(pushBody), true))
	require.Equal(t, http.StatusOK, code)
	code, _ = serve(s, githubRequest("push", "m-2", []byte(pushBody), false))
	require.Equal(t, http.StatusUnauthorized, code)
	// The attack: deliveries to a thousand made-up paths, and a forged forge name in the path.
	for i := range 1000 {
		r := httptest.NewRequest(http.MethodPost, fmt.Sprintf("/forge-%d", i), strings.NewReader("{}"))
		code, _ = serve(s, r)
		require.Equal(t, http.StatusNotFound, code)
	}
	code, _ = serve(s, httptest.NewRequest(http.MethodPost, "/github/../evil", strings.NewReader("{}")))
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, map[string]int{"github/recorded": 1, "github/duplicate": 1, "github/refused": 1, "unknown/other": 1001}, counts)
}

func TestOutcomeNamesEveryStatusTheServerAnswers(t *testing.T) {
	for code, want := range map[int]string{202: "recorded", 200: "duplicate", 204: "ignored", 401: "refused", 400: "invalid",
		413: "invalid", 422: "invalid", 503: "unavailable", 404: "other", 405: "other", 429: "other"} {
		require.Equal(t, want, Outcome(code), "%d", code)
	}
}
