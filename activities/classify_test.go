package activities

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/gitea"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/gitlab"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
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
		"forge conflict":              {&forge.ConflictError{Branch: "b"}, contract.ErrMergeConflict, false},
		"forge not found":             {fmt.Errorf("head: %w", &forge.NotFoundError{What: "branch b"}), contract.ErrNotFound, false},
		"forge invalid":               {&forge.InvalidError{Field: "branch", Problem: "empty"}, contract.ErrRefused, false},
		"forge head changed":          {&forge.HeadChangedError{Branch: "b", Want: "1"}, contract.ErrRefused, false},
		"forge merged":                {&forge.MergedError{MR: forge.MergeRequest{ID: "7"}}, contract.ErrRefused, false},
		"forge base moved":            {forge.ErrBaseMoved, "", true},
		"forge rate limit":            {&forge.RateLimitError{RetryAfter: time.Second}, contract.ErrRateLimited, true},
		"github auth":                 {fmt.Errorf("github: open: %w", &github.AuthError{Status: 401}), contract.ErrRefused, false},
		"github not mergeable":        {&github.NotMergeableError{Number: 1}, "", true},
		"gitlab auth":                 {&gitlab.AuthError{Status: 403}, contract.ErrRefused, false},
		"gitlab api":                  {&gitlab.APIError{Status: 500, Err: errors.New("x")}, "", true},
		"gitea auth":                  {&gitea.AuthError{Status: 401}, contract.ErrRefused, false},
		"gitea closed":                {&gitea.ClosedError{Branch: "b"}, "", true},
		"localgit git":                {&localgit.GitError{Err: errors.New("exit 128")}, "", true},
		"localgit ref locked":         {fmt.Errorf("merge: %w", &forge.LockedError{What: "refs/heads/main"}), contract.ErrLockContention, true},
		"localgit unwritable":         {&localgit.UnwritableError{Path: "/r", Cause: "read-only file system"}, contract.ErrNotAllowed, false},
		"terraform binary":            {&terraform.NotFoundError{}, contract.ErrNotFound, false},
		"terraform bad input":         {&terraform.InvalidInputError{Field: "lockID"}, contract.ErrRefused, false},
		"terraform locked":            {&terraform.StateLockedError{Workspace: ws}, contract.ErrStateLocked, false},
		"terraform creation lock":     {&terraform.StateLockedError{Detail: "pg: locked for workspace creation"}, contract.ErrLockContention, true},
		"terraform holder alive":      {&terraform.HolderAliveError{Workspace: ws}, contract.ErrStateLocked, false},
		"terraform plan missing":      {&terraform.PlanMissingError{Workspace: ws}, contract.ErrTerraform, false},
		"terraform stale plan":        {&terraform.StalePlanError{Workspace: ws}, contract.ErrStalePlan, false},
		"terraform command":           {&terraform.CommandError{Workspace: ws, Err: errors.New("exit 1")}, contract.ErrTerraform, false},
		"terraform command cancelled": {&terraform.CommandError{Workspace: ws, Err: context.Canceled}, contract.ErrTerraform, false},
		"terraform killed":            {&terraform.KilledError{Workspace: ws, Signal: "killed"}, contract.ErrTerraformKilled, true},
		"terraform no sandbox":        {fmt.Errorf("plan: %w", &terraform.SandboxRefusedError{Reason: "no bwrap"}), contract.ErrNotAllowed, false},
		"terraform store down":        {&terraform.StoreError{Workspace: ws, Err: errors.New("refused")}, "", true},
		"store sealed":                {&store.SealError{What: "plan", KeyID: "k1", Err: errors.New("x")}, contract.ErrUnreadable, false},
		"argocd bad input":            {&argocd.InvalidInputError{Field: "url"}, contract.ErrRefused, false},
		"argocd not found":            {&argocd.NotFoundError{Op: "get"}, "", true},
		"argocd conflict":             {&argocd.ConflictError{Op: "sync"}, "", true},
		"argocd unauthorized":         {&argocd.UnauthorizedError{Status: 401}, contract.ErrDeployFailed, false},
		"argocd 4xx":                  {&argocd.APIError{Status: 400}, contract.ErrRefused, false},
		"argocd 5xx":                  {&argocd.APIError{Status: 502}, "", true},
		"argocd sync failed":          {&argocd.SyncFailedError{App: "a"}, contract.ErrDeployFailed, false},
		"argocd timeout":              {&argocd.TimeoutError{App: "a"}, contract.ErrDeployTimeout, false},
		"argocd timeout, terminate 404": {&argocd.TimeoutError{App: "a", TerminateErr: &argocd.NotFoundError{}},
			contract.ErrDeployTimeout, false},
		"not owned":         {&deploy.NotOwnedError{Kind: "ArgoCD application", Name: "a"}, contract.ErrDeployFailed, false},
		"config validation": {&config.ValidationError{Errors: []config.FieldError{{Field: "stack", Message: "required"}}}, contract.ErrInvalidConfig, false},
		"config stack":      {&config.StackError{Stack: "s"}, contract.ErrInvalidConfig, false},
		"config manifest":   {&config.ManifestError{File: "a.yaml", Message: "no kind"}, "", true},
		"store bad setting": {&store.InvalidInputError{Field: "keys", Reason: "required"}, contract.ErrRefused, false}, // was retried; only the worker\'s start opens the store
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
		assert.Equal(t, contract.ErrNotAllowed, ae.Type())
		assert.True(t, ae.NonRetryable())
		assert.Equal(t, "acme/web: taken; choose another name", ae.Message())
	}
	if assert.ErrorAs(t, notFoundf("no config for %s at %s", "acme/web", "abc"), &ae) {
		assert.Equal(t, contract.ErrNotFound, ae.Type())
		assert.True(t, ae.NonRetryable())
		assert.Equal(t, "no config for acme/web at abc", ae.Message())
	}
}
