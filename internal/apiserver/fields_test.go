package apiserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// Fields only slipway's own components set are refused from a person with 400 (CLI exit 2)
// naming the field, before anything reaches Temporal: a rollout's name on a deploy, a pushed
// commit to adopt, a forge comment's MR, a sweep's schedule and progress.
func TestServerRefusesFieldsOnlySlipwaySets(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	// alice may read her tenant (asked first, so an outsider learns nothing); no other decision is asked.
	url := serve(t, p, func(_ context.Context, c apiserver.Check) (bool, string, string, error) {
		if c.Operation == apiserver.OpRead {
			return true, "", "", nil
		}
		return false, "", "", errors.New("not asked")
	})
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/instances/acme/web/operations/deploy", `{"request":{"rollout":"rollout-x"}}`, "request.rollout"},
		{"/v1/instances/acme/evil/operations/create", `{"request":{"configYAML":"stack: example\n","adopt":"0123456789abcdef0123456789abcdef01234567"}}`, "request.adopt"},
		{"/v1/instances/acme/web/approvals/approve", `{"plan":"abcdef0","actor":"alice","mr":"7"}`, "mr"},
		{"/v1/drift/check", `{"tenant":"acme","resume":{"left":[{"ref":{"tenant":"other","name":"db"},"state":"Deployed"}],"checked":0,"drifted":0}}`, "resume"},
		{"/v1/drift/check", `{"tenant":"acme","schedule":"drift-nightly"}`, "schedule"},
		{"/v1/drift/check", `{"tenant":"acme","requester":{"kind":"person","issuer":"x","name":"carol"}}`, "requester"},
		{"/v1/drift/schedules", `{"id":"n","every":3600000000000,"scope":{"tenant":"acme","schedule":"x"}}`, "scope.schedule"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+alice.IDToken)
		req.ContentLength = int64(len(tc.body))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", tc.path, b)
		require.Contains(t, string(b), `"kind":"bad-request"`, tc.path)
		require.Contains(t, string(b), tc.field+": only slipway sets it", tc.path)
	}
	// A priority out of range is bad input naming its field, before anything is asked or sent.
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/instances/acme/web/operations/deploy", `{"request":{"priority":9}}`, "request.priority: 9 is out of range"},
		{"/v1/rollouts", `{"id":"r1","stack":"example","priority":-2}`, "priority: -2 is out of range"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+alice.IDToken)
		req.ContentLength = int64(len(tc.body))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", tc.path, b)
		require.Contains(t, string(b), tc.want, tc.path)
	}
}
