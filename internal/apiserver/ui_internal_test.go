package apiserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
)

type refuseAll struct{}

func (refuseAll) Verify(context.Context, string) (identity.Actor, error) {
	return identity.Actor{}, errors.New("no token is good here")
}

// The page, its script and its sign-in settings are served without a token (they hold nothing
// of anyone's), under a policy that lets them reach only this server and the provider; nothing
// else is: an API route, a path under /ui/ that climbs out of it, a POST, a foreign Host.
func TestTheTenantPageIsTheOnlyThingServedWithoutAToken(t *testing.T) {
	s := &Server{o: Options{Verifier: refuseAll{}, UI: &UI{Issuer: "http://127.0.0.1:5556", ClientID: "slipway-cli", Scopes: "openid groups"}},
		hosts: []string{"127.0.0.1"}, mux: http.NewServeMux()}
	s.routes()
	s.traced = s.mux
	get := func(method, path, host string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://127.0.0.1:8090"+path, nil)
		r.Host = host
		rec := httptest.NewRecorder()
		if code, err := s.Admit(r); err != nil {
			s.Refuse(rec, code, err.Error())
			return rec
		}
		s.ServeHTTP(rec, r)
		return rec
	}
	for path, want := range map[string]string{"/ui/": "<title>slipway</title>", "/ui/app.js": "code_challenge", "/ui/config.json": `"clientId":"slipway-cli"`} {
		rec := get(http.MethodGet, path, "127.0.0.1:8090")
		require.Equal(t, http.StatusOK, rec.Code, path)
		require.Contains(t, rec.Body.String(), want, path)
		csp := rec.Header().Get("Content-Security-Policy")
		require.Contains(t, csp, "connect-src 'self' http://127.0.0.1:5556;", path)
		require.Contains(t, csp, "frame-ancestors 'none'", path)
		require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	}
	for _, tc := range []struct{ method, path, host string }{
		{http.MethodGet, "/v1/instances", "127.0.0.1:8090"},
		{http.MethodGet, "/v1/openapi.json", "127.0.0.1:8090"},
		{http.MethodPost, "/ui/", "127.0.0.1:8090"},
		{http.MethodGet, "/ui/../v1/instances", "127.0.0.1:8090"},
		{http.MethodGet, "/ui/", "rebind.attacker.example:8090"},
	} {
		rec := get(tc.method, tc.path, tc.host)
		require.Contains(t, []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}, rec.Code, "%s %s %s", tc.method, tc.path, tc.host)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), "%s %s", tc.method, tc.path)
		require.False(t, strings.Contains(rec.Body.String(), "<html"), "%s %s", tc.method, tc.path)
	}
}
