package argocd

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewNamesTheBadSetting(t *testing.T) {
	cases := []struct {
		url, token, field string
	}{
		{"", "tok", EnvURL},
		{"argocd.example.com", "tok", EnvURL},
		{"ftp://argocd.example.com", "tok", EnvURL},
		{"https://user:pw@argocd.example.com", "tok", EnvURL},
		{"https://argocd.example.com", "", EnvToken},
		{"https://argocd.example.com", "abc def-secret", EnvToken},
	}
	for _, tc := range cases {
		_, err := New(tc.url, tc.token)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, "%q %q", tc.url, tc.token)
		require.Equal(t, tc.field, ie.Field)
		require.Contains(t, err.Error(), tc.field)
		require.NotContains(t, err.Error(), "def-secret", "the token never appears in an error")
	}
}

func TestOptionsAreValidated(t *testing.T) {
	for name, opt := range map[string]Option{
		"poll interval":      WithPollInterval(0),
		"destination server": WithDestination(""),
		"project":            WithProject(""),
		"http client":        WithHTTPClient(nil),
	} {
		_, err := New("https://argocd.example.com", "tok", opt)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, name, ie.Field)
	}
	c, err := New("https://argocd.example.com/", "tok", WithProject("team"), WithDestination("https://10.0.0.1:6443"))
	require.NoError(t, err)
	require.Equal(t, "team", c.Project())
	require.Equal(t, "https://10.0.0.1:6443", c.Destination())
	require.Equal(t, DefaultPollInterval, c.poll)
}

func TestEveryRequestCarriesContentType(t *testing.T) {
	f := newFake(t)
	// The fake refuses a request without the header, as argocd-server does.
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/v1/applications/x?project=default", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+fakeToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
	require.Equal(t, 1, f.withoutCT)

	// Every call of the client, bodiless GETs and DELETEs included, carries it.
	c := f.client(t)
	ctx := context.Background()
	d := NewDeployer(c)
	_, err = d.Deploy(ctx, testApp(), time.Now().Add(time.Minute))
	require.NoError(t, err)
	_, err = c.inProject("slipway-acme").ResourceTree(ctx, "acme-web")
	require.NoError(t, err)
	require.NoError(t, c.inProject("slipway-acme").TerminateOperation(ctx, "acme-web"))
	_, err = d.Remove(ctx, testApp())
	require.NoError(t, err)
	require.Equal(t, 1, f.withoutCT, "no client request lacked Content-Type")
	require.Greater(t, f.count("DELETE /api/v1/applications/acme-web?"), 0)
}

func TestUnauthorizedNamesTheTokenVariable(t *testing.T) {
	f := newFake(t)
	c, err := New(f.srv.URL, "wrong-token-xyz")
	require.NoError(t, err)
	_, err = c.GetApplication(context.Background(), "acme-web")
	var ue *UnauthorizedError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, http.StatusUnauthorized, ue.Status)
	require.Contains(t, ue.Message, "token signature is invalid")
	require.Contains(t, err.Error(), EnvToken)
	require.NotContains(t, err.Error(), "wrong-token-xyz")
	require.True(t, IsNonRetryable(err))

	_, err = NewDeployer(c).Deploy(context.Background(), testApp(), time.Now().Add(time.Minute))
	require.ErrorAs(t, err, &ue)
}

func TestBaseURLWithPathPrefix(t *testing.T) {
	f := newFake(t)
	mux := http.NewServeMux()
	mux.Handle("/argocd/", http.StripPrefix("/argocd", f.srv.Config.Handler))
	srv := newLoopbackServer(t, mux)
	c, err := New(srv+"/argocd/", fakeToken)
	require.NoError(t, err)
	_, err = c.GetApplication(context.Background(), "acme-web")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Contains(t, f.callList(), "GET /api/v1/applications/acme-web?project=default")
}

func TestNewFromEnv(t *testing.T) {
	f := newFake(t)
	t.Setenv(EnvURL, f.srv.URL)
	t.Setenv(EnvToken, "")
	_, err := NewFromEnv()
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, EnvToken, ie.Field)

	t.Setenv(EnvToken, fakeToken)
	c, err := NewFromEnv()
	require.NoError(t, err)
	_, err = c.GetApplication(context.Background(), "acme-web")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
}

// countingTransport proves WithHTTPClient's client carries the requests.
type countingTransport struct{ n int }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return http.DefaultTransport.RoundTrip(r)
}

func TestWithHTTPClientIsUsed(t *testing.T) {
	f := newFake(t)
	tr := &countingTransport{}
	c := f.client(t, WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, c.DeleteApplication(context.Background(), "acme-web", true))
	require.Equal(t, 1, tr.n)
	_, err := Login(context.Background(), f.srv.URL, "admin", "hunter2", WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	require.Equal(t, 2, tr.n)
}
