package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// The client's verdict on a request sets the exit code; a backend's own kind reaching a local
// command does not (it exited 1 before kinds, and scripts depend on it).
func TestExitCodeOfEachError(t *testing.T) {
	cases := map[string]struct {
		err  error
		want int
	}{
		"not signed in":        {&client.RefusedError{Message: "token expired", Unauthenticated: true}, ExitRefused},
		"denied by policy":     {fmt.Errorf("deploy: %w", &client.RefusedError{Message: "no"}), ExitRefused},
		"frontend denied":      {serviceerror.NewPermissionDenied("read-only token", ""), ExitRefused},
		"no such instance":     {&client.NotFoundError{Instance: "acme/web"}, ExitUsage},
		"no such rollout":      {&client.RolloutNotFoundError{ID: "r-1"}, ExitUsage},
		"no such profile":      {&client.ProfileNotFoundError{Profile: "p", NamedBy: "--profile"}, ExitUsage},
		"busy":                 {&client.RejectedError{Message: "busy", Busy: true}, ExitUsage},
		"not allowed":          {&client.RejectedError{Message: "Destroyed"}, ExitUsage},
		"invalid config":       {&client.InvalidConfigError{Message: "bad"}, ExitUsage},
		"bad credential":       {&client.CredentialsError{Var: "SLIPWAY_TEMPORAL_TOKEN_FILE", Reason: "empty"}, ExitUsage},
		"malformed API call":   {&apiserver.BadRequestError{Message: "unknown field"}, ExitUsage},
		"unknown command":      {errors.New(`unknown command "frob" for "slipway"`), ExitUsage},
		"unreachable":          {&client.UnavailableError{Address: "127.0.0.1:7233", Err: errors.New("refused")}, ExitFailed},
		"no worker":            {&apiserver.NoWorkerError{Message: "no worker"}, ExitFailed},
		"deadline unmeetable":  {&client.DeadlineMissedError{Message: "cannot be met"}, ExitFailed},
		"plain":                {errors.New("boom"), ExitFailed},
		"backend not found":    {&terraform.NotFoundError{Reason: "not on PATH"}, ExitFailed},
		"backend invalid":      {fmt.Errorf("--store-pg-conn: %w", &store.InvalidInputError{Field: "x", Reason: "y"}), ExitFailed},
		"backend config":       {&config.ValidationError{}, ExitFailed},
		"backend rate limited": {&forge.RateLimitError{}, ExitFailed},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, exitCode(tc.err), name)
	}
}
