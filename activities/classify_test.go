package activities

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/argocd"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/gitea"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/gitlab"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// The workflows and the committed histories switch on these type strings: each backend error
// keeps the one it had, and "" (retried as it is) stays retryable.
func TestClassifyGivesEachBackendErrorItsStepType(t *testing.T) {
	ws := terraform.Workspace{Tenant: "acme", Name: "web"}
	cases := map[string]struct {
		err       error
		typ       string
		retryable bool
	}{
		"plain":                       {errors.New("connection reset"), "", true},
		"forge conflict":              {&forge.ConflictError{Branch: "b"}, steps.ErrMergeConflict, false},
		"forge not found":             {fmt.Errorf("head: %w", &forge.NotFoundError{What: "branch b"}), steps.ErrNotFound, false},
		"forge invalid":               {&forge.InvalidError{Field: "branch", Problem: "empty"}, steps.ErrRefused, false},
		"forge head changed":          {&forge.HeadChangedError{Branch: "b", Want: "1"}, steps.ErrRefused, false},
		"forge merged":                {&forge.MergedError{MR: forge.MergeRequest{ID: "7"}}, steps.ErrRefused, false},
		"forge base moved":            {forge.ErrBaseMoved, "", true},
		"forge rate limit":            {&forge.RateLimitError{RetryAfter: time.Second}, steps.ErrRateLimited, true},
		"github auth":                 {fmt.Errorf("github: open: %w", &github.AuthError{Status: 401}), steps.ErrRefused, false},
		"github not mergeable":        {&github.NotMergeableError{Number: 1}, "", true},
		"gitlab auth":                 {&gitlab.AuthError{Status: 403}, steps.ErrRefused, false},
		"gitlab api":                  {&gitlab.APIError{Status: 500, Err: errors.New("x")}, "", true},
		"gitea auth":                  {&gitea.AuthError{Status: 401}, steps.ErrRefused, false},
		"gitea closed":                {&gitea.ClosedError{Branch: "b"}, "", true},
		"localgit git":                {&localgit.GitError{Err: errors.New("exit 128")}, "", true},
		"terraform binary":            {&terraform.NotFoundError{}, steps.ErrNotFound, false},
		"terraform bad input":         {&terraform.InvalidInputError{Field: "lockID"}, steps.ErrRefused, false},
		"terraform locked":            {&terraform.StateLockedError{Workspace: ws}, steps.ErrStateLocked, false},
		"terraform creation lock":     {&terraform.StateLockedError{Detail: "pg: locked for workspace creation"}, steps.ErrLockContention, true},
		"terraform holder alive":      {&terraform.HolderAliveError{Workspace: ws}, steps.ErrStateLocked, false},
		"terraform plan missing":      {&terraform.PlanMissingError{Workspace: ws}, steps.ErrTerraform, false},
		"terraform stale plan":        {&terraform.StalePlanError{Workspace: ws}, steps.ErrStalePlan, false},
		"terraform command":           {&terraform.CommandError{Workspace: ws, Err: errors.New("exit 1")}, steps.ErrTerraform, false},
		"terraform command cancelled": {&terraform.CommandError{Workspace: ws, Err: context.Canceled}, steps.ErrTerraform, false},
		"terraform store down":        {&terraform.StoreError{Workspace: ws, Err: errors.New("refused")}, "", true},
		"store sealed":                {&store.SealError{What: "plan", KeyID: "k1", Err: errors.New("x")}, steps.ErrUnreadable, false},
		"argocd bad input":            {&argocd.InvalidInputError{Field: "url"}, steps.ErrRefused, false},
		"argocd not found":            {&argocd.NotFoundError{Op: "get"}, "", true},
		"argocd conflict":             {&argocd.ConflictError{Op: "sync"}, "", true},
		"argocd unauthorized":         {&argocd.UnauthorizedError{Status: 401}, steps.ErrDeployFailed, false},
		"argocd 4xx":                  {&argocd.APIError{Status: 400}, steps.ErrRefused, false},
		"argocd 5xx":                  {&argocd.APIError{Status: 502}, "", true},
		"argocd sync failed":          {&argocd.SyncFailedError{App: "a"}, steps.ErrDeployFailed, false},
		"argocd timeout":              {&argocd.TimeoutError{App: "a"}, steps.ErrDeployTimeout, false},
		"argocd timeout, terminate 404": {&argocd.TimeoutError{App: "a", TerminateErr: &argocd.NotFoundError{}},
			steps.ErrDeployTimeout, false},
		"not owned":         {&deploy.NotOwnedError{Kind: "ArgoCD application", Name: "a"}, steps.ErrDeployFailed, false},
		"config validation": {&config.ValidationError{Errors: []config.FieldError{{Field: "stack", Message: "required"}}}, steps.ErrInvalidConfig, false},
		"config stack":      {&config.StackError{Stack: "s"}, steps.ErrInvalidConfig, false},
		"config manifest":   {&config.ManifestError{File: "a.yaml", Message: "no kind"}, "", true},
		"store bad setting": {&store.InvalidInputError{Field: "keys", Reason: "required"}, steps.ErrRefused, false}, // was retried; only the worker\'s start opens the store
	}
	for name, tc := range cases {
		got := classify(tc.err)
		var ae *temporal.ApplicationError
		if !errors.As(got, &ae) {
			assert.Equal(t, tc.typ, "", "%s: not an application error: %v", name, got)
			assert.True(t, tc.retryable, name)
			continue
		}
		assert.Equal(t, tc.typ, ae.Type(), name)
		assert.Equal(t, tc.retryable, !ae.NonRetryable(), name)
	}
}

// The step's own refusals go through the same table, with their text unchanged.
func TestNotAllowedfAndNotFoundfAreFinalWithTheirText(t *testing.T) {
	var ae *temporal.ApplicationError
	if assert.ErrorAs(t, notAllowedf("%s: %v; choose another name", "acme/web", errors.New("taken")), &ae) {
		assert.Equal(t, steps.ErrNotAllowed, ae.Type())
		assert.True(t, ae.NonRetryable())
		assert.Equal(t, "acme/web: taken; choose another name", ae.Message())
	}
	if assert.ErrorAs(t, notFoundf("no config for %s at %s", "acme/web", "abc"), &ae) {
		assert.Equal(t, steps.ErrNotFound, ae.Type())
		assert.True(t, ae.NonRetryable())
		assert.Equal(t, "no config for acme/web at abc", ae.Message())
	}
}
