package argocd

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two deploys of one tenant may each find no project and create it: the second create is
// refused, as argocd-server words it, and must be read as "exists" so it reads and updates.
func TestACreateRefusedForADifferentExistingProjectIsExists(t *testing.T) {
	raced := &APIError{Status: http.StatusBadRequest, Message: `existing project spec is different; use upsert flag to force update; difference in keys "Destinations,0,Namespace"`}
	require.True(t, isExists(raced))
	require.True(t, isExists(&APIError{Status: http.StatusConflict, Message: `appprojects.argoproj.io "slipway-a" already exists`}))
	require.False(t, isExists(&APIError{Status: http.StatusBadRequest, Message: "invalid destination"}))
	require.False(t, isExists(errors.New("connection refused")))
}
