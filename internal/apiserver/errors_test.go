package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// Each error the direct path returns crosses the API as a status and kind and comes back as the
// same error, so the CLI exits with the same code whichever way a request went: 3 for refusals,
// 2 for bad input, 1 otherwise.
func TestErrorsRoundTrip(t *testing.T) {
	s := &Server{}
	for _, tc := range []struct {
		err     error
		code    int
		refused bool
		bad     bool
	}{
		{&client.RefusedError{Message: "not signed in: token expired", Unauthenticated: true}, http.StatusUnauthorized, true, false},
		{&client.RefusedError{Message: "bob may not deploy instances of tenant acme"}, http.StatusForbidden, true, false},
		{&client.NotFoundError{Instance: "acme/web"}, http.StatusNotFound, false, true},
		{&client.RolloutNotFoundError{ID: "r-1"}, http.StatusNotFound, false, true},
		{&client.RejectedError{Message: "acme/web is busy", Busy: true}, http.StatusConflict, false, true},
		{&client.RejectedError{Message: "acme/web: deploy not allowed in Destroyed"}, http.StatusConflict, false, true},
		{&client.InvalidConfigError{Message: "bad", Fields: []contract.FieldError{{Field: "parameters.replicas", Message: "not an int"}}}, http.StatusBadRequest, false, true},
		{badRequest("request body: unknown field"), http.StatusBadRequest, false, true},
		{&NoWorkerError{Message: "no slipway worker accepted the request"}, http.StatusGatewayTimeout, false, false},
		{&client.DeadlineMissedError{Message: "stack web: every instance on 1.5.0 by 2027-01-15T00:00:00Z cannot be met"}, http.StatusUnprocessableEntity, false, false},
		{errors.New("boom"), http.StatusInternalServerError, false, false},
	} {
		rec := httptest.NewRecorder()
		require.Equal(t, tc.code, s.writeErr(rec, tc.err), "%T", tc.err)
		require.Equal(t, tc.code, rec.Code)
		var b Problem
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &b))
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
		require.Equal(t, tc.code, b.Status)
		require.Equal(t, http.StatusText(tc.code), b.Title)
		require.Equal(t, "urn:slipway:problem:"+b.Kind, b.Type)
		back := errorFromBody(rec.Code, b)
		require.Equal(t, tc.refused, client.IsRefused(back), "%T -> %v", tc.err, back)
		require.Equal(t, tc.bad, IsBadRequest(back), "%T -> %v", tc.err, back)
		if tc.code != http.StatusInternalServerError {
			require.Equal(t, tc.err.Error(), back.Error(), "the message survives")
		}
	}
	// httpserve's own refusals carry no kind: a 401 is still about the token, a 403 (a foreign Host) is no policy's.
	require.True(t, client.IsRefused(errorFromBody(http.StatusUnauthorized, Problem{Detail: "not signed in"})))
	require.False(t, client.IsRefused(errorFromBody(http.StatusForbidden, Problem{Detail: "host not allowed"})))
}
