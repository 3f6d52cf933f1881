// Package activities holds slipway's side effects: one Activities struct with
// its clients injected, registered once per worker. Every method is idempotent:
// external effects are keyed by the operation and step, never by the attempt.
package activities

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/internal/stackenv"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Activities are the steps' side effects, over injected clients.
type Activities struct {
	Forge forge.Forge
	// Stacks is the stacks repository (SLIPWAY_STACKS_REPO), read only: releases are cut from it
	// and their renders read it; nil cuts from the GitOps repository's stacks/.
	Stacks    forge.Forge
	Terraform Terraform
	Deployer  deploy.Deployer
	Secrets   SecretStore
	// Requests submits webhook deliveries' commands to instances; set from the worker's client.
	Requests Requests
	// Names records which instance holds each derived name; set from the worker's client.
	Names NameRegistry
	// Reserved are the names no new instance may derive (the defaults plus SLIPWAY_RESERVED_NAMES).
	Reserved names.Reserved
	// Fleet lists watched instances and tells them what the deployer observer saw; set from the
	// worker's client.
	Fleet Fleet
	// Instances lists a stack's instances and sends them a rollout's deploys; set from the worker's client.
	Instances Instances
	// Notify holds the notification sinks; nil sends none.
	Notify *Notifier
	// ControlPlanes lists the registered worker pools; set from the worker's client.
	ControlPlanes ControlPlanes
	// HookSandbox confines exec hooks; its zero value refuses to run them.
	HookSandbox hooks.Sandbox
	// StackEnv names the worker variables each stack's exec hooks may see (terraform's runner
	// holds the same list).
	StackEnv stackenv.AllowList
	// Credentials maps the credentials stacks name to the operator's sources (SLIPWAY_CREDENTIALS_FILE);
	// terraform's runner holds the same mapping.
	Credentials credentials.Map
	// HookHTTP calls http hooks (hooks.NewClient): public addresses and the operator's
	// SLIPWAY_HOOK_ALLOW_CIDRS, no redirects; nil allows no internal address.
	HookHTTP *http.Client
	// Policy decides every request (Authorize): policy.FromEnv(); nil decides with policy.Default().
	Policy *policy.Engine
	// ProviderMirror is the worker's filesystem provider mirror (SLIPWAY_PROVIDER_MIRROR): a
	// stack's lock file must name providers it has; "" checks nothing.
	ProviderMirror string
	// Claims records which delivery first submitted each webhook request; nil leaves it to
	// Temporal's de-duplication of update IDs, which holds within one run of an instance.
	Claims RequestClaims
	// Audit is the durable audit log RecordAudit writes; nil keeps records in history only.
	Audit AuditLog
	// Runs is the fencing token and schedule check of every state-changing step (fence.go);
	// set from the worker's client.
	Runs Runs
	// Dependencies reads the instances stacks depend on and finds their users; set from the worker's client.
	Dependencies Dependencies
	// Seals signs the stacks' releases files slipway writes and checks them on every read (the
	// files are on main, where a tenant's commit can write): the attestation key ring. The worker
	// always sets it; nil (unit tests) checks nothing.
	Seals *attest.Keyring
	// Heads records each stack's newest releases file (generation and seal) where only slipway
	// writes, so a read refuses an earlier sealed file restored on main; nil checks nothing.
	Heads ReleasesHeads
	// Budgets are the platform's capacity budgets (SLIPWAY_CAPACITY_FILE).
	Budgets capacity.Budgets
	// Semaphores hold the budgets' slots; set from the worker's client.
	Semaphores Semaphores
}

// Terraform runs terraform in one working directory per instance: internal/terraform's Runner,
// or an instant stand-in in a benchmark. Every method is safe to call again.
type Terraform interface {
	// Dir is the workspace's working directory on this host; Backend is "local" or "pg".
	Dir(ws terraform.Workspace) string
	Backend() string
	// Prepare writes files into the working directory; Initialized says whether init has run there.
	Prepare(ctx context.Context, ws terraform.Workspace, files map[string][]byte) error
	Initialized(ws terraform.Workspace) bool
	Init(ctx context.Context, ws terraform.Workspace) error
	Plan(ctx context.Context, ws terraform.Workspace, planName string, destroy bool) (*terraform.Plan, error)
	// PlanJSON is the stored plan's JSON as the policy reads it (sensitive values masked); nil when none is kept.
	PlanJSON(ctx context.Context, ws terraform.Workspace, planName string) (json.RawMessage, error)
	Apply(ctx context.Context, ws terraform.Workspace, p *terraform.Plan) (alreadyApplied bool, err error)
	Destroy(ctx context.Context, ws terraform.Workspace) error
	// Drift plans the prepared files against the refreshed state; it writes no state.
	Drift(ctx context.Context, ws terraform.Workspace) (*terraform.DriftReport, error)
	Resources(ctx context.Context, ws terraform.Workspace) ([]terraform.Resource, error)
	// Outputs are the root module's outputs in the state, sensitive ones masked.
	Outputs(ctx context.Context, ws terraform.Workspace) (map[string]any, error)
	// State is the resources, masked outputs and serial an apply or destroy leaves, in two reads.
	State(ctx context.Context, ws terraform.Workspace) (terraform.State, error)
	Lock(ctx context.Context, ws terraform.Workspace) (*terraform.LockInfo, bool, error)
	ForceUnlock(ctx context.Context, ws terraform.Workspace, lockID string) error
}

var _ Terraform = (*terraform.Runner)(nil)

// SecretStore keeps each instance's bootstrapped secrets: internal/store's shared PostgreSQL
// store for several workers, or internal/secrets' files for one host.
type SecretStore interface {
	// Ensure creates the missing secrets among names and returns those it created; workers
	// racing on one instance agree on one value.
	Ensure(ctx context.Context, tenant, name string, names []string) ([]string, error)
	Get(ctx context.Context, tenant, name string) (map[string]string, error)
	// Forget deletes the instance's secrets; deleting nothing is not an error.
	Forget(ctx context.Context, tenant, name string) error
}

func workspace(r contract.Ref) terraform.Workspace {
	return terraform.Workspace{Tenant: r.Tenant, Name: r.Name, Schema: r.Derived().Schema}
}
