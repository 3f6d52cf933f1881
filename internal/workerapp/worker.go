package workerapp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/workflows"
)

// NewActivities builds the activities' clients from cfg.
func NewActivities(cfg Config) (*activities.Activities, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// A policy that does not compile stops the worker, naming its file and line.
	pol, err := policy.FromEnv()
	if err != nil {
		return nil, err
	}
	fg, err := NewForge(cfg)
	if err != nil {
		return nil, err
	}
	stacks, err := NewStacks(cfg)
	if err != nil {
		return nil, err
	}
	bin, err := terraform.FindBinary(cfg.Terraform)
	if err != nil {
		return nil, err
	}
	enginesDir := cfg.EnginesDir
	if enginesDir == "" {
		enginesDir = localdirs.Tools()
	}
	engines, err := terraform.DiscoverEngines(context.Background(), enginesDir, bin)
	if err != nil {
		return nil, err
	}
	opts := []terraform.Option{terraform.WithBinary(bin), terraform.WithEngines(engines), terraform.WithStackEnv(cfg.StackEnv, nil),
		terraform.WithCredentials(cfg.Credentials),
		terraform.WithWaitDelay(cfg.terraformStopGrace()),
		terraform.WithProviderMirror(cfg.ProviderMirror), terraform.WithPluginCache(cfg.PluginCache)}
	tfSandbox, err := terraformSandbox(cfg)
	if err != nil {
		return nil, err
	}
	opts = append(opts, tfSandbox.options()...)
	if cfg.TFPGConn != "" {
		opts = append(opts, terraform.WithPGBackend(cfg.TFPGConn))
	}
	if cfg.TFPGConn != "" {
		keys, err := payloadKeys(cfg)
		if err != nil {
			return nil, fmt.Errorf("terraform's per-instance PostgreSQL roles (SLIPWAY_TF_PG_CONN) keep their passwords sealed with the payload key: %w", err)
		}
		opts = append(opts, terraform.WithPGRoles(keys))
	}
	var secretStore activities.SecretStore = secrets.NewStore(legacySecrets(cfg))
	var auditLog activities.AuditLog
	var claims activities.RequestClaims
	var heads activities.ReleasesHeads
	if cfg.StateDir != "" {
		auditLog = &store.AuditFile{Path: filepath.Join(cfg.StateDir, store.AuditFileName)}
		claims = store.ClaimDir(filepath.Join(cfg.StateDir, store.ClaimsDirName))
		heads = store.HeadDir(filepath.Join(cfg.StateDir, store.HeadsDirName))
	}
	if cfg.StorePGConn != "" {
		shared, err := openStore(cfg)
		if err != nil {
			return nil, err
		}
		opts = append(opts, terraform.WithPlanStore(shared))
		secretStore, auditLog, claims, heads = shared, shared, shared, shared
	}
	tf, err := terraform.New(cfg.StateDir, opts...)
	if err != nil {
		return nil, err
	}
	dep, err := newDeployer(cfg)
	if err != nil {
		return nil, err
	}
	n, err := newNotifier(cfg, fg)
	if err != nil {
		return nil, err
	}
	sandbox, err := hookSandbox(cfg)
	if err != nil {
		return nil, err
	}
	hookHTTP, err := hooks.NewClient(os.Getenv(hooks.AllowKnob))
	if err != nil {
		return nil, err
	}
	reserved, err := names.ParseReserved(cfg.ReservedNames)
	if err != nil {
		return nil, err
	}
	seals := cfg.Attest
	if seals == nil {
		if seals, err = attest.Load(); err != nil {
			return nil, fmt.Errorf("refusing to start: the worker seals and checks the stacks' releases files with the attestation key: %w", err)
		}
	}
	return &activities.Activities{Seals: seals, Forge: fg, Stacks: stacks, Terraform: tf, Deployer: dep, Secrets: secretStore, Notify: n,
		HookSandbox: sandbox, StackEnv: cfg.StackEnv, Credentials: cfg.Credentials, Budgets: cfg.Budgets, HookHTTP: hookHTTP, Reserved: reserved, Policy: pol,
		ProviderMirror: tf.MirrorDir(), Audit: auditLog, Claims: claims, Heads: heads}, nil
}

// hookSandbox is cfg's confinement of exec hooks, or the one SLIPWAY_HOOK_SANDBOX picks; a
// confinement asked for that does not work here stops the worker.
func hookSandbox(cfg Config) (hooks.Sandbox, error) {
	if cfg.HookSandbox != nil {
		return *cfg.HookSandbox, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sandboxProbeTimeout)
	defer cancel()
	return hooks.SandboxFromEnv(ctx, os.Getenv)
}

// sandboxProbeTimeout bounds the one bwrap run that checks the sandbox works on this host.
const sandboxProbeTimeout = 10 * time.Second

// newNotifier loads the sinks; a bad file stops the worker with the field it names. The forge
// reports commit statuses and MR comments when it can.
func newNotifier(cfg Config, fg forge.Forge) (*activities.Notifier, error) {
	if cfg.NotifyFile == "" {
		return nil, nil
	}
	nc, err := notify.Load(cfg.NotifyFile, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("SLIPWAY_NOTIFY_FILE: %w", err)
	}
	allowed, err := notify.ParseAllowed(os.Getenv(notify.AllowKnob))
	if err != nil {
		return nil, err
	}
	opts := []notify.Option{notify.WithAllowed(allowed)}
	if r, ok := fg.(forge.Reporter); ok {
		opts = append(opts, notify.WithReporter(r))
	}
	return &activities.Notifier{Config: nc, Sender: notify.NewSender(opts...)}, nil
}

// storeConnectTimeout bounds the worker's first connection to the shared store at start.
const storeConnectTimeout = 30 * time.Second

// openStore connects the shared plan and secret store, which imports this host's old
// secret files on first use of each instance.
func openStore(cfg Config) (*store.PG, error) {
	keys, err := payloadKeys(cfg)
	if err != nil {
		return nil, fmt.Errorf("the shared store (SLIPWAY_STORE_PG_CONN) is sealed with the payload key: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeConnectTimeout)
	defer cancel()
	return store.OpenPG(ctx, cfg.StorePGConn, keys, store.WithLegacySecrets(legacySecrets(cfg)))
}

// payloadKeys is cfg's keyring, or the one SLIPWAY_CODEC_KEY(_FILE) holds.
func payloadKeys(cfg Config) (*codec.Keyring, error) {
	if cfg.Keys != nil {
		return cfg.Keys, nil
	}
	return codec.FromEnv()
}

// legacySecrets is where one worker kept secrets on its own disk.
func legacySecrets(cfg Config) string { return filepath.Join(cfg.StateDir, "secrets") }

func newDeployer(cfg Config) (deploy.Deployer, error) {
	if cfg.Deployer == "none" {
		return deploy.None{}, nil
	}
	c, err := argocd.New(cfg.ArgoURL, cfg.ArgoToken)
	if err != nil {
		return nil, fmt.Errorf("deployer argocd (SLIPWAY_DEPLOYER=none opts out): %w", err)
	}
	kube, err := kubeapi.Load(cfg.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("deployer argocd: %w", err)
	}
	return argocd.NewDeployer(c, argocd.WithKube(kube), argocd.WithKubeconfig(cfg.Kubeconfig)), nil
}

// observerStartTimeout bounds the worker's call that starts (or reaches) the deployer observer.
const observerStartTimeout = 30 * time.Second

// NewWorker returns a worker on cfg.TaskQueue with everything registered, and makes sure the
// observer of its deployer runs.
func NewWorker(c client.Client, cfg Config) (Workers, error) {
	acts, err := NewActivities(cfg)
	if err != nil {
		return nil, err
	}
	Attach(acts, c, cfg.TaskQueue)
	SizeCache(cfg.stickyCache())
	ws, err := PoolWorkers(c, cfg.TaskQueue, cfg, acts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), observerStartTimeout)
	defer cancel()
	if cfg.ControlPlane != "" {
		if err := RegisterPool(ctx, c, cfg.TaskQueue, cfg); err != nil {
			return nil, err
		}
	}
	if _, err := StartObserver(ctx, c, cfg.TaskQueue, acts, cfg.ObserveInterval); err != nil {
		return nil, err
	}
	return ws, nil
}

// Register registers every workflow under its stable name, and the activities once. Activities
// without a name registry are refused here: a provision must never skip claiming its names.
func Register(r worker.Registry, acts *activities.Activities) error {
	if acts.Names == nil {
		return &MissingError{Field: "Activities.Names", Hint: "app.Attach sets it from the worker's Temporal client"}
	}
	RegisterWorkflows(r)
	r.RegisterActivityWithOptions(acts, activity.RegisterOptions{})
	return nil
}

// RegisterWorkflows registers the entity, validation and pipeline workflows.
func RegisterWorkflows(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.InstanceWorkflow, workflow.RegisterOptions{Name: contract.InstanceWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.ValidateConfigWorkflow, workflow.RegisterOptions{Name: contract.ValidateWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.DeliveryWorkflow, workflow.RegisterOptions{Name: contract.DeliveryWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.DeliveryBatchWorkflow, workflow.RegisterOptions{Name: contract.DeliveryBatchWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.NameClaimWorkflow, workflow.RegisterOptions{Name: contract.NameClaimWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.CapacityWorkflow, workflow.RegisterOptions{Name: contract.CapacityWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.DeployerObserverWorkflow, workflow.RegisterOptions{Name: contract.ObserverWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.RolloutWorkflow, workflow.RegisterOptions{Name: contract.RolloutWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.RolloutPlanWorkflow, workflow.RegisterOptions{Name: contract.RolloutPlanWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.DriftSweepWorkflow, workflow.RegisterOptions{Name: contract.DriftSweepWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.StackWorkflow, workflow.RegisterOptions{Name: contract.StackWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.NotifyWorkflow, workflow.RegisterOptions{Name: contract.NotifyWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.ControlPlaneWorkflow, workflow.RegisterOptions{Name: contract.ControlPlaneWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.ResourceStatesWorkflow, workflow.RegisterOptions{Name: contract.ResourceStatesWorkflowName})
	pipelines := map[lifecycle.Operation]any{
		lifecycle.OpProvision:   workflows.ProvisionPipeline,
		lifecycle.OpDeploy:      workflows.DeployPipeline,
		lifecycle.OpPlan:        workflows.PlanPipeline,
		lifecycle.OpArchive:     workflows.ArchivePipeline,
		lifecycle.OpDestroy:     workflows.DestroyPipeline,
		lifecycle.OpDeprovision: workflows.DeprovisionPipeline,
	}
	for _, op := range lifecycle.AllOperations {
		r.RegisterWorkflowWithOptions(pipelines[op], workflow.RegisterOptions{Name: contract.PipelineName(op)})
	}
}
