package devenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/stackenv"
	"github.com/slipway-dev/slipway/internal/tracing"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// EnvOptions configure the embedded default: dev server, GitOps repo, worker.
type EnvOptions struct {
	StateDir string // holds gitops/, terraform state and work dirs, temporal.db
	// Address of a Temporal frontend to reuse if it answers; otherwise a dev server is
	// started there (or on a free port when Address is "").
	Address   string
	UIPort    int  // 0: free port
	Headless  bool // no UI; a started UI decodes payloads through a codec endpoint served here
	TaskQueue string
	Logger    *logging.Temporal // worker and client logs; nil: discard
	// Deployer and the terraform PostgreSQL backend, as in app.Config.
	Deployer string
	TFPGConn string
	// Forge, when its Kind is set and not localgit, is the GitOps repository instead of
	// a local one (which is then not created).
	Forge workerapp.Forge
	// ArgoURL and ArgoToken reach an argocd-server for Deployer "argocd"; when they are
	// empty, a real ArgoCD on a real kube-apiserver is started (internal/devstack/argostack).
	ArgoURL, ArgoToken string
	// Kubeconfig reaches the cluster of that ArgoCD (app.Config.Kubeconfig); "" takes the one
	// of the stack this process started at ArgoURL, if any.
	Kubeconfig string
	// NoWorker starts no worker: the caller runs its own (e.g. a test's worker process).
	NoWorker bool
	// CodecListen is where to serve the codec endpoint when the server at Address is
	// reused (its UI is not ours to configure, so the operator pastes the URL into it):
	// a loopback host:port, falling back to a free port when that one is taken; "" = none.
	// Its CORS origins are the UI's on UIPort (0: DefaultUIPort).
	CodecListen string
	// Temporal is the engine started when none answers at Address: EngineDev ("" too) or
	// EnginePostgres with TemporalNodes nodes (0 = 1), see cluster.go.
	Temporal      string
	TemporalNodes int
	// ObserveInterval is how often the deployer observer lists the apps (0: app.DefaultObserveInterval).
	ObserveInterval time.Duration
	// NotifyFile lists the notification sinks, as SLIPWAY_NOTIFY_FILE.
	NotifyFile string
	// StacksRepo is the stacks repository releases are cut from, as SLIPWAY_STACKS_REPO; "" = none.
	StacksRepo string
	// Tracer traces the env's client and worker (a test's in-memory exporter); nil follows OTEL_*.
	Tracer trace.TracerProvider
}

// Env is a running embedded default.
type Env struct {
	Server     *Server // nil when an existing server was reused
	Address    string
	StateDir   string
	GitOpsRepo string
	Client     *client.Client
	Activities *activities.Activities
	Argo       *argostack.Stack // the ArgoCD stack this env started, if any
	Cluster    *ClusterEngine   // the PostgreSQL-backed Temporal cluster this env started, if any
	Deployer   string
	// TerraformSandbox is how its worker confines terraform: bubblewrap, or unconfined when it is missing.
	TerraformSandbox workerapp.TerraformSandbox
	// KeyFile holds the payload encryption key in use; "" when it came from SLIPWAY_CODEC_KEY.
	KeyFile string
	// AttestKeyFile holds the attestation key in use; "" when it came from SLIPWAY_ATTEST_KEY.
	AttestKeyFile string
	// Interceptors verify requests: every worker on this env's queues takes them.
	Interceptors []interceptor.WorkerInterceptor
	// CodecURL is the codec endpoint this env serves on loopback for the Temporal UI
	// (the started UI uses it by itself); "" when none is served.
	CodecURL string
	// Observer is the workflow ID of the deployer observer this env's worker started ("" for none).
	Observer string
	codec    *codecEndpoint
	worker   worker.Worker
}

// Start brings up the embedded default and a worker on it.
func Start(ctx context.Context, o EnvOptions) (_ *Env, err error) {
	if o.StateDir, err = filepath.Abs(o.StateDir); err != nil {
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	if o.TaskQueue == "" {
		o.TaskQueue = contract.DefaultTaskQueue
	}
	if o.Logger == nil {
		o.Logger = logging.NewTemporal(logging.Nop())
	}
	keys, keyFile, err := devKeyring(o.StateDir)
	if err != nil {
		return nil, err
	}
	attestKeys, attestFile, err := devAttestKeyring(o.StateDir)
	if err != nil {
		return nil, err
	}
	e := &Env{StateDir: o.StateDir, GitOpsRepo: filepath.Join(o.StateDir, "gitops"), KeyFile: keyFile, AttestKeyFile: attestFile}
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	if err := e.startServer(ctx, o, keys); err != nil {
		return nil, err
	}
	if e.Cluster != nil && o.TFPGConn == "" {
		if o.TFPGConn, err = e.Cluster.slipwayDatabase(); err != nil {
			return nil, err
		}
	}
	if o.Forge.Kind == "" || o.Forge.Kind == "localgit" {
		if _, err := SeedGitOps(e.GitOpsRepo); err != nil {
			return nil, err
		}
	} else {
		e.GitOpsRepo = ""
	}
	if o.Deployer == "" {
		o.Deployer = "none"
	}
	e.Deployer = o.Deployer
	if o.Deployer == "argocd" && o.ArgoURL == "" {
		if err := e.startArgo(ctx, &o); err != nil {
			return nil, err
		}
	}
	clientTracing, workerTracing := tracingOf(o)
	if e.Client, err = client.Dial(ctx, o.TaskQueue, append(clientTracing, client.WithHostPort(e.Address), client.WithLogger(o.Logger),
		client.WithKeyring(keys), client.WithAttestation(attestKeys),
		client.WithIdentity(LocalAdmin()))...); err != nil {
		return nil, err
	}
	if err := e.Client.EnsureSearchAttributes(ctx); err != nil {
		return nil, err
	}
	allow, err := stackenv.FromEnv()
	if err != nil {
		return nil, err
	}
	creds, err := credentials.FromEnv()
	if err != nil {
		return nil, err
	}
	budgets, err := capacity.FromEnv()
	if err != nil {
		return nil, err
	}
	// bwrap by default, as a production worker; without it a dev machine still runs terraform, saying so.
	if e.TerraformSandbox, err = workerapp.TerraformSandboxFromEnv(ctx, os.Getenv, true); err != nil {
		return nil, err
	}
	if !e.TerraformSandbox.Secure() {
		o.Logger.Warn(e.TerraformSandbox.String())
	}
	cfg := workerapp.Config{TaskQueue: o.TaskQueue, GitOpsRepo: e.GitOpsRepo, StateDir: o.StateDir, StackEnv: allow, Credentials: creds, Budgets: budgets,
		Terraform: os.Getenv("SLIPWAY_TERRAFORM"), TFPGConn: o.TFPGConn, StorePGConn: o.TFPGConn, Keys: keys, Deployer: o.Deployer,
		Attest: attestKeys, Payloads: codec.DataConverter(keys),
		ArgoURL: o.ArgoURL, ArgoToken: o.ArgoToken, Forge: o.Forge, ObserveInterval: o.ObserveInterval, NotifyFile: o.NotifyFile,
		StacksRepo: o.StacksRepo, Kubeconfig: o.Kubeconfig, TerraformSandbox: &e.TerraformSandbox}
	if cfg.Kubeconfig == "" && o.ArgoURL != "" {
		cfg.Kubeconfig = argostack.KubeconfigOf(o.ArgoURL)
	}
	if cfg.Kubeconfig == "" {
		cfg.Kubeconfig = os.Getenv(kubeapi.EnvKubeconfig) // with SLIPWAY_ARGOCD_URL's ArgoCD
	}
	if e.Activities, err = workerapp.NewActivities(cfg); err != nil {
		return nil, err
	}
	// Attached even without a worker: tests start their own on e.Activities.
	workerapp.Attach(e.Activities, e.Client.Temporal, o.TaskQueue)
	if e.Interceptors, err = workerapp.Interceptors(cfg); err != nil {
		return nil, err
	}
	e.Interceptors = append(workerTracing, e.Interceptors...)
	if o.NoWorker {
		return e, nil
	}
	e.worker = worker.New(e.Client.Temporal, o.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	if err := workerapp.Register(e.worker, e.Activities); err != nil {
		return nil, err
	}
	if err := e.worker.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	if e.Observer, err = workerapp.StartObserver(ctx, e.Client.Temporal, o.TaskQueue, e.Activities, o.ObserveInterval); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Env) startServer(ctx context.Context, o EnvOptions, keys *codec.Keyring) error {
	if o.Address != "" && Reachable(ctx, o.Address, 2*time.Second) {
		e.Address = o.Address
		if o.CodecListen == "" {
			return nil
		}
		port := o.UIPort
		if port == 0 {
			port = DefaultUIPort
		}
		if err := e.serveCodec(keys, o.CodecListen); err != nil {
			return err
		}
		e.codec.allow(UIOrigins(port))
		return nil
	}
	if o.Temporal != "" && o.Temporal != EngineDev {
		return e.startCluster(ctx, o)
	}
	so := ServerOptions{Headless: o.Headless, UIPort: o.UIPort, DBFile: filepath.Join(o.StateDir, "temporal.db"),
		SearchAttributes: contract.SearchAttributeTypes, LogFile: filepath.Join(o.StateDir, "temporal.log")}
	if o.Address != "" {
		host, port, err := splitHostPort(o.Address)
		if err != nil {
			return fmt.Errorf("TEMPORAL_ADDRESS: %w", err)
		}
		so.IP, so.Port = host, port
	}
	if !o.Headless {
		// The UI's port is picked as the server starts, so its origins are allowed after.
		if err := e.serveCodec(keys, "127.0.0.1:0"); err != nil {
			return err
		}
		so.CodecEndpoint = e.CodecURL
	}
	srv, err := StartServer(ctx, so)
	if err != nil {
		var nf *NotFoundError
		if errors.As(err, &nf) {
			return err
		}
		return fmt.Errorf("start temporal dev server: %w", err)
	}
	e.Server, e.Address = srv, srv.Address
	if e.codec != nil {
		e.codec.allow(uiOrigins(srv))
	}
	return nil
}

// serveCodec starts the env's codec endpoint on listen.
func (e *Env) serveCodec(keys *codec.Keyring, listen string) error {
	c, err := startCodecEndpoint(keys, listen)
	if err != nil {
		return err
	}
	e.codec, e.CodecURL = c, c.URL
	return nil
}

// CodecOrigins are the UI origins the codec endpoint answers (CORS); nil when none is served.
func (e *Env) CodecOrigins() []string {
	if e.codec == nil {
		return nil
	}
	return e.codec.Origins()
}

// uiOrigins are the origins of a started server's UI: its own URL, and the same
// port as localhost and 127.0.0.1.
func uiOrigins(s *Server) []string {
	origins := []string{s.UIURL}
	for _, o := range UIOrigins(s.UIPort) {
		if o != s.UIURL {
			origins = append(origins, o)
		}
	}
	return origins
}

// startArgo starts ArgoCD on a kube-apiserver for the embedded default.
func (e *Env) startArgo(ctx context.Context, o *EnvOptions) error {
	// The dev cluster starts empty each time: its PKI and tokens are new on every start.
	dir := filepath.Join(o.StateDir, "argocd")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	s, err := argostack.Start(ctx, argostack.Options{Dir: dir, ToolsDir: ToolsDir()})
	if err != nil {
		return fmt.Errorf("%w\n(or run without a cluster: --deployer none)", err)
	}
	e.Argo = s
	o.ArgoURL, o.ArgoToken, o.Kubeconfig = s.ArgoURL, s.ArgoToken, s.Kubeconfig
	return nil
}

// Stop stops the worker, the client and whatever servers the env started.
func (e *Env) Stop() {
	if e.worker != nil {
		e.worker.Stop()
	}
	if e.Argo != nil {
		_ = e.Argo.Stop()
	}
	if e.Client != nil {
		e.Client.Close()
	}
	if e.Server != nil {
		_ = e.Server.Stop()
	}
	if e.Cluster != nil {
		e.Cluster.Stop()
	}
	if e.codec != nil {
		_ = e.codec.Stop()
	}
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return host, port, nil
}

// LocalAdmin is who a person on the embedded default acts as: the local user, a platform admin,
// as the dev CLI does (the dev key is root on a dev box), so the demo's destroy is the platform's
// own. On the embedded default the worker shares that client, so what it sends is signed so too.
func LocalAdmin() identity.Actor {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return identity.Actor{Kind: identity.Person, Issuer: "local", Subject: name, Name: name,
		Groups: []string{"platform-admins"}, Via: "dev"}
}

// tracingOf is the tracing interceptors of the env's client and worker: o.Tracer's, the global
// provider's when OTEL_* turns tracing on, else none.
func tracingOf(o EnvOptions) ([]client.Option, []interceptor.WorkerInterceptor) {
	var opts []tracing.Option
	switch {
	case o.Tracer != nil:
		opts = append(opts, tracing.WithTracerProvider(o.Tracer))
	case !tracing.Enabled(os.Getenv):
		return nil, nil
	}
	return []client.Option{client.WithInterceptors(tracing.ClientInterceptor(opts...))},
		[]interceptor.WorkerInterceptor{tracing.WorkerInterceptor(opts...)}
}
