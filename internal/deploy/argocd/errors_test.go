package argocd

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStatusErrorParsesArgoCDBody(t *testing.T) {
	err := statusError("op", http.StatusBadRequest, []byte(`{"error":"e","code":3,"message":"application spec for x is invalid"}`))
	var api *APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, 3, api.Code)
	require.Equal(t, "application spec for x is invalid", api.Message)
	require.True(t, IsNonRetryable(err))

	err = statusError("op", http.StatusServiceUnavailable, []byte("upstream down"))
	require.ErrorAs(t, err, &api)
	require.Equal(t, "upstream down", api.Message)
	require.False(t, IsNonRetryable(err), "a 5xx may pass")

	err = statusError("op", http.StatusForbidden, nil)
	var ue *UnauthorizedError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, "Forbidden", ue.Message)
}

func TestIsNonRetryable(t *testing.T) {
	for err, want := range map[error]bool{
		&UnauthorizedError{Status: 401}:            true,
		&SyncFailedError{}:                         true,
		fmt.Errorf("wrapped: %w", &TimeoutError{}): true,
		&InvalidInputError{Field: "x"}:             true,
		&APIError{Status: 422}:                     true,
		&APIError{Status: 502}:                     false,
		&NotFoundError{}:                           false,
		&ConflictError{}:                           false,
		errors.New("connection refused"):           false,
	} {
		require.Equal(t, want, IsNonRetryable(err), "%T %v", err, err)
	}
}
