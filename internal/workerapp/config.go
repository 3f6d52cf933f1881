// Package app wires a slipway worker: it builds the clients from settings and
// registers the workflows and activities with them.
package workerapp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/observe"
	"github.com/slipway-dev/slipway/internal/stackenv"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/workflows"
)

// Config is a worker's settings; FromEnv reads them from SLIPWAY_* variables.
type Config struct {
	TaskQueue  string // SLIPWAY_TASK_QUEUE
	GitOpsRepo string // SLIPWAY_GITOPS_REPO: path of the GitOps git repository (localgit forge)
	StateDir   string // SLIPWAY_STATE_DIR: terraform working dirs and local state
	Terraform  string // SLIPWAY_TERRAFORM: terraform binary (default: PATH)
	// EnginesDir (SLIPWAY_ENGINES_DIR, default tools.sh's cache) holds the engine binaries stacks pick.
	EnginesDir string
	TFPGConn   string // SLIPWAY_TF_PG_CONN: keep terraform state in PostgreSQL (pg backend)
	// ProviderMirror (SLIPWAY_PROVIDER_MIRROR) is where terraform installs providers from: a
	// filesystem mirror directory or an https:// network mirror; "" leaves it to terraform.
	ProviderMirror string
	// PluginCache (SLIPWAY_PLUGIN_CACHE) is the worker's provider cache; "" is <state dir>/plugin-cache.
	PluginCache string
	// StorePGConn (SLIPWAY_STORE_PG_CONN, default SLIPWAY_TF_PG_CONN) keeps plans and secrets in
	// PostgreSQL, sealed with the payload keyring, so any worker can run any step. Without it
	// they stay on this worker's disk: one worker only.
	StorePGConn string
	// Keys seals the shared store; nil loads SLIPWAY_CODEC_KEY / SLIPWAY_CODEC_KEY_FILE.
	Keys *codec.Keyring
	// Attest verifies every request the worker handles; nil loads SLIPWAY_ATTEST_KEY / SLIPWAY_ATTEST_KEY_FILE.
	Attest *attest.Keyring
	// Payloads is the worker's payload converter (its client's), which signal digests are read with;
	// nil builds it from Keys.
	Payloads converter.DataConverter
	// Tracing (OTEL_*, set from tracing.Setup) puts the OpenTelemetry interceptor first on every worker.
	Tracing   bool
	Deployer  string // SLIPWAY_DEPLOYER: argocd or none
	ArgoURL   string // SLIPWAY_ARGOCD_URL: argocd-server base URL
	ArgoToken string // SLIPWAY_ARGOCD_TOKEN: bearer token for argocd-server
	Forge     Forge
	// ObserveInterval (SLIPWAY_OBSERVE_INTERVAL) is how often the deployer observer lists the
	// apps and tells instances what changed; 0 takes DefaultObserveInterval.
	ObserveInterval time.Duration
	observeErr      error
	// StickyCache (SLIPWAY_STICKY_CACHE) is how many workflows this worker keeps in memory
	// between tasks; 0 takes DefaultStickyCache. An instance evicted from it is replayed from
	// its history when it next wakes (a few ms for a parked one).
	StickyCache int
	stickyErr   error
	// NotifyFile (SLIPWAY_NOTIFY_FILE) lists the notification sinks; "" sends none.
	NotifyFile string
	// ControlPlane (SLIPWAY_CONTROL_PLANE) names this worker's pool: besides TaskQueue (every
	// instance's entity) it polls TaskQueue@NAME, where instances with controlPlane: NAME run
	// their pipelines. "" is the default pool.
	ControlPlane string
	// Self (SLIPWAY_SELF=TENANT/NAME) is the instance this pool runs on: disrupting it from this
	// pool is refused. It needs ControlPlane.
	Self string
	// ForgeMirror (SLIPWAY_FORGE_MIRROR) is a git repository on disk that mirrors the GitOps
	// repo (the forge's push mirror): reads fall back to it, and deploys read from it, while the
	// forge is down.
	ForgeMirror string
	// StacksRepo (SLIPWAY_STACKS_REPO) is a git repository on disk holding stacks/<name>/ apart
	// from the GitOps repo: releases are cut from it and their renders read it (docs/releases.md).
	StacksRepo string
	// StackEnv (SLIPWAY_STACK_ENV) names the worker variables each stack's terraform and exec
	// hooks may see; nothing else of the worker's environment reaches them.
	StackEnv    stackenv.AllowList
	stackEnvErr error
	// Credentials (SLIPWAY_CREDENTIALS_FILE) map the credentials stacks name to sources set aside
	// for stacks; a source that is the worker's own stops the worker.
	Credentials    credentials.Map
	credentialsErr error
	// Budgets (SLIPWAY_CAPACITY_FILE) are the platform's capacity budgets stacks draw on.
	Budgets    capacity.Budgets
	budgetsErr error
	// HookSandbox confines exec hooks; nil picks it from SLIPWAY_HOOK_SANDBOX (hooks.SandboxFromEnv).
	HookSandbox *hooks.Sandbox
	// TerraformSandbox confines terraform; nil picks it from SLIPWAY_TERRAFORM_SANDBOX (TerraformSandboxFromEnv).
	TerraformSandbox *TerraformSandbox
	// Kubeconfig (SLIPWAY_KUBECONFIG) reaches the cluster the Applications deploy to: the argocd
	// deployer creates each instance's namespace and applies its bootstrapped secrets there itself.
	Kubeconfig string
	// ReservedNames (SLIPWAY_RESERVED_NAMES) are the operator's names no new instance may derive,
	// on top of names.DefaultReserved.
	ReservedNames string
	// WorkerGrace (SLIPWAY_WORKER_GRACE) is how long running activities may finish once a stop
	// began; TerraformStopGrace (SLIPWAY_TERRAFORM_STOP_GRACE) how long an interrupted terraform
	// gets after SIGINT. 0 takes the defaults (drain.go).
	WorkerGrace, TerraformStopGrace time.Duration
	graceErr                        error
}

// DefaultStickyCache keeps the active part of a fleet warm and bounds the worker's memory:
// `make bench` measures the cost of a cached instance and of waking an evicted one.
const DefaultStickyCache = 2000

// DefaultObserveInterval is how often the deployer observer lists the apps by default.
const DefaultObserveInterval = observe.DefaultInterval

// Forge says where the GitOps repository lives. Kind localgit uses GitOpsRepo.
type Forge struct {
	Kind  string    // SLIPWAY_FORGE: localgit (default), github, gitlab or gitea (also Forgejo)
	URL   string    // SLIPWAY_FORGE_URL: API base URL (GitHub Enterprise, GitLab, Gitea); github.com by default for github
	Repo  string    // SLIPWAY_FORGE_REPO: owner/repo (GitHub, Gitea) or the project path (GitLab)
	Token string    // SLIPWAY_FORGE_TOKEN (or SLIPWAY_GITHUB_TOKEN / SLIPWAY_GITLAB_TOKEN / SLIPWAY_GITEA_TOKEN)
	App   GitHubApp // SLIPWAY_GITHUB_APP_*: github only, instead of Token
}

// FromEnv reads the worker's settings from the environment.
func FromEnv() Config {
	cfg := Config{
		TaskQueue:      envOr("SLIPWAY_TASK_QUEUE", contract.DefaultTaskQueue),
		GitOpsRepo:     os.Getenv("SLIPWAY_GITOPS_REPO"),
		StateDir:       os.Getenv("SLIPWAY_STATE_DIR"),
		Terraform:      os.Getenv("SLIPWAY_TERRAFORM"),
		EnginesDir:     os.Getenv(terraform.EnvEnginesDir),
		TFPGConn:       os.Getenv("SLIPWAY_TF_PG_CONN"),
		ProviderMirror: os.Getenv("SLIPWAY_PROVIDER_MIRROR"),
		PluginCache:    os.Getenv("SLIPWAY_PLUGIN_CACHE"),
		StorePGConn:    envOr("SLIPWAY_STORE_PG_CONN", os.Getenv("SLIPWAY_TF_PG_CONN")),
		Deployer:       envOr("SLIPWAY_DEPLOYER", "argocd"),
		ArgoURL:        os.Getenv("SLIPWAY_ARGOCD_URL"),
		ArgoToken:      os.Getenv("SLIPWAY_ARGOCD_TOKEN"),
		Forge:          forgeFromEnv(),
		NotifyFile:     os.Getenv("SLIPWAY_NOTIFY_FILE"),
		ControlPlane:   os.Getenv("SLIPWAY_CONTROL_PLANE"),
		Self:           os.Getenv("SLIPWAY_SELF"),
		ForgeMirror:    os.Getenv("SLIPWAY_FORGE_MIRROR"),
		StacksRepo:     os.Getenv("SLIPWAY_STACKS_REPO"),
	}
	cfg.StackEnv, cfg.stackEnvErr = stackenv.FromEnv()
	cfg.Credentials, cfg.credentialsErr = credentials.FromEnv()
	cfg.Budgets, cfg.budgetsErr = capacity.FromEnv()
	cfg.Kubeconfig, cfg.ReservedNames = os.Getenv(kubeapi.EnvKubeconfig), os.Getenv(names.EnvReserved)
	if v := os.Getenv("SLIPWAY_OBSERVE_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err == nil && d <= 0 {
			err = fmt.Errorf("must be positive")
		}
		if err != nil {
			cfg.observeErr = fmt.Errorf("SLIPWAY_OBSERVE_INTERVAL: %q is not a positive duration such as 30s or 2m: %w", v, err)
		}
		cfg.ObserveInterval = d
	}
	var err1, err2 error
	cfg.WorkerGrace, err1 = parseGrace(EnvWorkerGrace, DefaultWorkerGrace)
	cfg.TerraformStopGrace, err2 = parseGrace(EnvTerraformStopGrace, DefaultTerraformStopGrace)
	cfg.graceErr = errors.Join(err1, err2)
	if v := os.Getenv("SLIPWAY_STICKY_CACHE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			cfg.stickyErr = fmt.Errorf("SLIPWAY_STICKY_CACHE: %q is not a positive number of workflows", v)
		}
		cfg.StickyCache = n
	}
	return cfg
}

// workerGrace is the WorkerStopTimeout of this process's workers.
func (c Config) workerGrace() time.Duration {
	if c.WorkerGrace > 0 {
		return c.WorkerGrace
	}
	return DefaultWorkerGrace
}

// terraformStopGrace is how long terraform may take after SIGINT before it is killed.
func (c Config) terraformStopGrace() time.Duration {
	if c.TerraformStopGrace > 0 {
		return c.TerraformStopGrace
	}
	return DefaultTerraformStopGrace
}

// StopSettings are the graces of this worker's stop sequence, or the bad setting's error.
func (c Config) StopSettings() (Stop, error) {
	return Stop{Grace: c.workerGrace(), TerraformGrace: c.terraformStopGrace()}, c.graceErr
}

// stickyCache is the sticky cache size this worker asks the SDK for.
func (c Config) stickyCache() int {
	if c.StickyCache > 0 {
		return c.StickyCache
	}
	return DefaultStickyCache
}

func forgeFromEnv() Forge {
	f := Forge{Kind: envOr("SLIPWAY_FORGE", "localgit"), URL: os.Getenv("SLIPWAY_FORGE_URL"),
		Repo: os.Getenv("SLIPWAY_FORGE_REPO"), Token: os.Getenv("SLIPWAY_FORGE_TOKEN"), App: gitHubAppFromEnv()}
	if f.Token == "" {
		switch f.Kind {
		case "github":
			f.Token = os.Getenv("SLIPWAY_GITHUB_TOKEN")
		case "gitlab":
			f.Token = os.Getenv("SLIPWAY_GITLAB_TOKEN")
		case "gitea", "forgejo":
			f.Token = os.Getenv("SLIPWAY_GITEA_TOKEN")
		}
	}
	return f
}

// Validate names the first missing or bad setting.
func (c Config) Validate() error {
	switch {
	case c.observeErr != nil:
		return c.observeErr
	case c.stickyErr != nil:
		return c.stickyErr
	case c.graceErr != nil:
		return c.graceErr
	case c.stackEnvErr != nil:
		return c.stackEnvErr
	case c.credentialsErr != nil:
		return c.credentialsErr
	case c.budgetsErr != nil:
		return c.budgetsErr
	case c.terraformStopGrace() > MaxTerraformStopGrace:
		return fmt.Errorf("%s: %s is too long: a terraform step whose stack budget (schema.timeouts) runs out gets %s past it to stop, and an interrupted terraform may take %s; use at most %s",
			EnvTerraformStopGrace, c.terraformStopGrace(), workflows.BudgetMargin, stopTakes(c.terraformStopGrace()), MaxTerraformStopGrace)
	case c.StickyCache < 0:
		return fmt.Errorf("SLIPWAY_STICKY_CACHE: %d is negative", c.StickyCache)
	case c.ObserveInterval < 0:
		return fmt.Errorf("SLIPWAY_OBSERVE_INTERVAL: %s is negative", c.ObserveInterval)
	case c.TaskQueue == "":
		return fmt.Errorf("SLIPWAY_TASK_QUEUE: must not be empty")
	case c.forgeKind() == "localgit" && c.GitOpsRepo == "":
		return fmt.Errorf("SLIPWAY_GITOPS_REPO: set it to the GitOps git repository's path")
	case c.StateDir == "":
		return fmt.Errorf("SLIPWAY_STATE_DIR: set it to a directory for terraform working dirs and state")
	case !filepath.IsAbs(c.StateDir):
		return fmt.Errorf("SLIPWAY_STATE_DIR: %q must be an absolute path", c.StateDir)
	case c.Deployer != "none" && c.Deployer != "argocd":
		return fmt.Errorf("SLIPWAY_DEPLOYER: %q is not a deployer; use argocd or none", c.Deployer)
	case c.Deployer == "argocd" && c.Kubeconfig == "":
		return fmt.Errorf("%s: set it to a kubeconfig for the cluster the Applications deploy to: the argocd deployer creates each instance's namespace and applies its secrets there itself (SLIPWAY_DEPLOYER=none opts out)", kubeapi.EnvKubeconfig)
	}
	if _, err := names.ParseReserved(c.ReservedNames); err != nil {
		return err
	}
	if err := c.validateGitHubApp(); err != nil {
		return err
	}
	return c.validatePool()
}

// validatePool checks the control-plane settings.
func (c Config) validatePool() error {
	if c.ControlPlane != "" {
		if err := controlplane.Check(c.ControlPlane); err != nil {
			return fmt.Errorf("SLIPWAY_CONTROL_PLANE: %w", err)
		}
	}
	if c.Self != "" {
		if c.ControlPlane == "" {
			return fmt.Errorf("SLIPWAY_SELF: set SLIPWAY_CONTROL_PLANE too: only a named pool can say which instance it runs on")
		}
		if _, err := contract.ParseRef(c.Self); err != nil {
			return fmt.Errorf("SLIPWAY_SELF: %w", err)
		}
	}
	if c.ForgeMirror != "" && !filepath.IsAbs(c.ForgeMirror) {
		return fmt.Errorf("SLIPWAY_FORGE_MIRROR: %q must be an absolute path to a git repository", c.ForgeMirror)
	}
	if c.StacksRepo != "" && !filepath.IsAbs(c.StacksRepo) {
		return fmt.Errorf("SLIPWAY_STACKS_REPO: %q must be an absolute path to a git repository", c.StacksRepo)
	}
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func (c Config) forgeKind() string {
	if c.Forge.Kind == "" {
		return "localgit"
	}
	return c.Forge.Kind
}
