package errkind_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/gitea"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/gitlab"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Each backend's errors say their kind through any wrapping; the ones a kind would misfile say none.
func TestBackendErrorsSayTheirKind(t *testing.T) {
	cases := map[string]struct {
		err  error
		want errkind.Kind
	}{
		"forge not found":        {&forge.NotFoundError{What: "branch b"}, errkind.NotFound},
		"forge conflict":         {&forge.ConflictError{Branch: "b"}, errkind.Conflict},
		"forge invalid":          {&forge.InvalidError{Field: "dir"}, errkind.Invalid},
		"forge rate limit":       {&forge.RateLimitError{RetryAfter: time.Second}, errkind.RateLimited},
		"forge head changed":     {&forge.HeadChangedError{Branch: "b"}, ""},
		"forge locked":           {&forge.LockedError{What: "refs/heads/main"}, errkind.Busy},
		"localgit unwritable":    {&localgit.UnwritableError{Path: "/r"}, errkind.NotAllowed},
		"github auth":            {&github.AuthError{Status: 401}, errkind.Auth},
		"gitlab auth over field": {&gitlab.AuthError{Status: 403}, errkind.Auth},
		"gitea auth":             {&gitea.AuthError{Status: 401}, errkind.Auth},
		"gitea api":              {&gitea.APIError{Status: 500, Err: errors.New("x")}, ""},
		"terraform binary":       {&terraform.NotFoundError{}, errkind.NotFound},
		"terraform bad input":    {&terraform.InvalidInputError{Field: "lockID"}, errkind.Invalid},
		"terraform locked":       {&terraform.StateLockedError{}, errkind.Busy},
		"terraform holder alive": {&terraform.HolderAliveError{}, errkind.Busy},
		"terraform command":      {&terraform.CommandError{Err: errors.New("exit 1")}, ""},
		"argocd bad input":       {&argocd.InvalidInputError{Field: "url"}, errkind.Invalid},
		"argocd unauthorized":    {&argocd.UnauthorizedError{Status: 401}, errkind.Auth},
		"argocd 404 mid-sync":    {&argocd.NotFoundError{}, ""},
		"argocd 409 mid-sync":    {&argocd.ConflictError{}, ""},
		"config validation":      {&config.ValidationError{}, errkind.Invalid},
		"config stack":           {&config.StackError{Stack: "s"}, errkind.Invalid},
		"config ref":             {&contract.RefError{Part: "name", Value: "Web"}, errkind.Invalid},
		"store setting":          {&store.InvalidInputError{Field: "keys"}, errkind.Invalid},
		"client not found":       {&client.NotFoundError{Instance: "acme/web"}, errkind.NotFound},
		"client busy":            {&client.RejectedError{Busy: true}, errkind.Busy},
		"client not allowed":     {&client.RejectedError{}, errkind.NotAllowed},
		"client refused":         {&client.RefusedError{}, errkind.Auth},
		"client invalid config":  {&client.InvalidConfigError{}, errkind.Invalid},
		"api bad request":        {&apiserver.BadRequestError{}, errkind.Invalid},
	}
	for name, tc := range cases {
		wrapped := fmt.Errorf("step: %w", fmt.Errorf("call: %w", tc.err))
		assert.Equal(t, tc.want, errkind.Of(wrapped), name)
		if tc.want != "" {
			assert.ErrorIs(t, wrapped, tc.want, name)
		}
	}
}

func TestAForgeRateLimitCarriesItsDelay(t *testing.T) {
	d, ok := errkind.Delay(fmt.Errorf("open: %w", &forge.RateLimitError{RetryAfter: 42 * time.Second}))
	assert.True(t, ok)
	assert.Equal(t, 42*time.Second, d)
}

// A credential Temporal's frontend refused is the client's Auth, though the SDK's error says no kind.
func TestClientKindOfReadsOnlyTheClientsVerdict(t *testing.T) {
	assert.Equal(t, errkind.Auth, client.KindOf(serviceerror.NewPermissionDenied("read-only", "")))
	assert.Equal(t, errkind.Busy, client.KindOf(fmt.Errorf("deploy: %w", &client.RejectedError{Busy: true})))
	assert.Equal(t, errkind.Kind(""), client.KindOf(&terraform.NotFoundError{}), "a backend's kind is not the client's verdict")
	assert.Equal(t, errkind.Invalid, apiserver.KindOf(&apiserver.BadRequestError{}))
}
