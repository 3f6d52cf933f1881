// Package terraform runs the real terraform binary (through terraform-exec) in one working
// directory per instance, with local or PostgreSQL state, plan files applied by hash and
// typed errors for locks, stale plans and failed commands.
package terraform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/stackenv"
)

const (
	backendLocal = "local"
	backendPG    = "pg"
	cmdShow      = "show"
	cmdStatePull = "state pull"
	// defaultWaitDelay gives terraform time to release its lock after SIGINT before it is killed.
	defaultWaitDelay = 30 * time.Second
)

// Runner runs terraform for many workspaces under one state directory. It is safe for
// concurrent use on different workspaces; terraform's own state lock guards one workspace.
type Runner struct {
	stateDir string
	// binary is the default terraform; engines the binaries a stack may pick (engines.go).
	binary    string
	engines   Engines
	pgConn    string
	out       io.Writer
	waitDelay time.Duration
	optErr    error
	plans     PlanStore
	// allow is the operator's per-stack allow-list of worker variables terraform may see.
	allow  stackenv.AllowList
	lookup func(string) (string, bool)
	// creds maps the credentials a workspace's stack names to their sources (credentials.go).
	creds credentials.Map
	// bwrap runs terraform in bubblewrap when set (sandbox.go).
	bwrap      string
	bwrapBinds []string
	// refused fails every command (no working sandbox); unconfined warns before each (sandbox.go).
	refused    *SandboxRefusedError
	unconfined func(ctx context.Context, ws Workspace, command string)
	// roleKeys seals each instance's PostgreSQL role password (pgrole.go); nil connects as pgConn.
	roleKeys *codec.Keyring
	// pgMu guards pgPool, the runner's own connections for lock records (pglock.go).
	pgMu   sync.Mutex
	pgPool *pgxpool.Pool
	// Where providers come from and are cached (providers.go); initSem admits one init at a time.
	mirrorDir, mirrorURL, pluginCache, cliConfig string
	initSem                                      chan struct{}
	// handles keeps terraform-exec's handles, and the engine version each asked, between commands.
	handles handles
}

// Option configures a Runner.
type Option func(*Runner)

// WithBinary uses this terraform binary instead of FindBinary("").
func WithBinary(path string) Option {
	return func(r *Runner) {
		if path == "" {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: "WithBinary path", Value: path, Reason: "must not be empty"})
			return
		}
		p, err := FindBinary(path)
		r.binary, r.optErr = p, errors.Join(r.optErr, err)
	}
}

// WithEngines lets workspaces pick their engine binary from es (DiscoverEngines); without it
// only workspaces that name no engine run, on the default terraform.
func WithEngines(es Engines) Option {
	return func(r *Runner) { r.engines = es }
}

// WithPGBackend keeps state in PostgreSQL (terraform's pg backend); empty means local state.
// The connection string only ever reaches terraform through its environment (PG_CONN_STR).
func WithPGBackend(connString string) Option {
	return func(r *Runner) { r.pgConn = connString }
}

// WithStackEnv lets terraform see the worker variables the allow-list names for the
// workspace's stack, read with lookup (nil is os.LookupEnv). Nothing else is inherited.
func WithStackEnv(a stackenv.AllowList, lookup func(string) (string, bool)) Option {
	return func(r *Runner) { r.allow, r.lookup = a, lookup }
}

// WithOutput copies terraform's stdout and stderr to w (writes are serialised).
func WithOutput(w io.Writer) Option {
	return func(r *Runner) {
		if w != nil {
			r.out = &syncWriter{w: w}
		}
	}
}

// WithWaitDelay is how long a cancelled command may take after SIGINT before it is killed.
func WithWaitDelay(d time.Duration) Option {
	return func(r *Runner) {
		if d <= 0 {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: "WithWaitDelay", Value: d.String(), Reason: "must be positive"})
		}
		r.waitDelay = d
	}
}

// New makes a Runner keeping working directories and local state under stateDir.
func New(stateDir string, opts ...Option) (*Runner, error) {
	if strings.TrimSpace(stateDir) == "" {
		return nil, &InvalidInputError{Field: "stateDir", Value: stateDir, Reason: "must not be empty"}
	}
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, &InvalidInputError{Field: "stateDir", Value: stateDir, Reason: err.Error()}
	}
	r := &Runner{stateDir: abs, waitDelay: defaultWaitDelay, plans: localPlans{dir: filepath.Join(abs, "plans")}, lookup: os.LookupEnv,
		initSem: make(chan struct{}, 1)}
	for _, o := range opts {
		o(r)
	}
	if r.lookup == nil {
		r.lookup = os.LookupEnv
	}
	if r.optErr != nil {
		return nil, r.optErr
	}
	if r.binary == "" {
		if r.binary, err = FindBinary(""); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, &InvalidInputError{Field: "stateDir", Value: stateDir, Reason: err.Error()}
	}
	if err := r.setupProviders(); err != nil {
		return nil, err
	}
	if err := r.writeWrapper(); err != nil {
		return nil, err
	}
	return r, nil
}

// Dir is the workspace's working directory: <stateDir>/work/<tenant>/<name>.
func (r *Runner) Dir(ws Workspace) string {
	return filepath.Join(r.stateDir, "work", ws.Tenant, ws.Name)
}

// recordDir holds Prepare's records of the workspace (records), where no sandbox binds it.
func (r *Runner) recordDir(ws Workspace) string {
	return filepath.Join(r.stateDir, "records", ws.Tenant, ws.Name)
}

// Backend is "local" or "pg".
func (r *Runner) Backend() string {
	if r.pgConn != "" {
		return backendPG
	}
	return backendLocal
}

// StatePath is the workspace's local state file; "" when state is kept in PostgreSQL.
func (r *Runner) StatePath(ws Workspace) string {
	if r.pgConn != "" {
		return ""
	}
	return r.statePath(ws)
}

// statePath is where the local backend keeps a workspace's state, outside the working dir
// so that wiping a working directory never loses state.
func (r *Runner) statePath(ws Workspace) string {
	return filepath.Join(r.stateDir, "tfstate", ws.Tenant, ws.Name, "terraform.tfstate")
}

// call is one terraform invocation in a workspace with its captured stderr.
type call struct {
	r       *Runner
	ws      Workspace
	command string
	tf      *tfexec.Terraform
	stderr  *tailBuffer
	env     map[string]string
	// secrets are the credential values in env, kept out of the output and errors.
	secrets []string
	// runEnv is env as recorded gave it to the running command (its run marker included).
	runEnv map[string]string
	// prov follows the provisioners an apply or destroy runs (interrupt.go).
	prov *provisioners
	// engine is the binary the workspace's engine picked; zero for the default terraform.
	engine Engine
	// key names tf among the runner's handles (handles.go).
	key handleKey
}

// interruptible is the context to run c's terraform under when ctx may be cancelled mid-change:
// a running provisioner gets up to half the wait delay to finish before terraform's SIGINT.
func (c *call) interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return interruptible(ctx, c.prov, c.r.waitDelay/2)
}

// open validates ws and prepares a terraform-exec handle on its (existing) working dir.
func (r *Runner) open(ctx context.Context, ws Workspace, command string) (*call, error) {
	if err := ws.validate(); err != nil {
		return nil, err
	}
	if r.refused != nil {
		return nil, r.refused
	}
	if r.unconfined != nil && r.bwrap == "" {
		r.unconfined(ctx, ws, command)
	}
	c := &call{r: r, ws: ws, command: command, stderr: &tailBuffer{max: 64 << 10}}
	dir := r.Dir(ws)
	if _, err := os.Stat(dir); err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: errNotPrepared}
	}
	env, err := r.env(ctx, ws)
	if err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	c.env = env
	if c.secrets, err = r.addCredentials(ws, env); err != nil {
		var bad *InvalidInputError
		if errors.As(err, &bad) {
			return nil, err
		}
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	engine, binary, err := r.engineOf(ws)
	if err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	c.engine = engine
	bin, err := r.execPath(ws, env, binary, command)
	if err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	c.key = keyOf(dir, bin, binary)
	tf, err := r.handles.get(c.key)
	if err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	if err := tf.SetEnv(env); err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	if err := tf.SetWaitDelay(r.waitDelay); err != nil {
		return nil, &CommandError{Command: command, Workspace: ws, Err: err}
	}
	stderr := io.Writer(c.stderr)
	var stdout []io.Writer
	if command == "apply" || command == "destroy" {
		c.prov = &provisioners{}
		stdout = append(stdout, c.prov)
	}
	if out := redactWriter(r.out, c.secrets); out != nil {
		// show -json and state pull print state values in clear, sensitive ones included.
		if command != cmdShow && command != cmdStatePull {
			stdout = append(stdout, out)
		}
		stderr = io.MultiWriter(out, c.stderr)
	}
	if len(stdout) > 0 {
		tf.SetStdout(io.MultiWriter(stdout...))
	}
	tf.SetStderr(stderr)
	c.tf = tf
	return c, nil
}

// close gives c's handle back for the workspace's next command; c is not used after.
func (c *call) close() {
	if c.tf != nil {
		c.r.handles.put(c.key, c.tf)
		c.tf = nil
	}
}

// passThrough are terraform's own settings from the operator (CLI config, provider cache, CAs):
// they say where terraform finds providers, and hold none of slipway's secrets.
var passThrough = []string{"TF_CLI_CONFIG_FILE", "TF_PLUGIN_CACHE_DIR", "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
	"TF_REGISTRY_DISCOVERY_RETRY", "TF_REGISTRY_CLIENT_TIMEOUT", "TZ", "LANG",
	// The CAs a network mirror or registry on a private CA is trusted with.
	"SSL_CERT_FILE", "SSL_CERT_DIR"}

// env is terraform's whole environment, built rather than inherited: a local-exec provisioner
// or a provider sees PATH, a HOME of the instance's own, terraform's settings, the pg backend's
// connection as the instance's own role, and the variables the operator allows the stack.
// TF_IN_AUTOMATION=1 is forced by terraform-exec; TF_INPUT cannot be set through it, but it
// passes -input=false to every command that could prompt.
func (r *Runner) env(ctx context.Context, ws Workspace) (map[string]string, error) {
	home := r.homeDir(ws)
	if err := os.MkdirAll(home, dirPerm); err != nil {
		return nil, err
	}
	env := map[string]string{"HOME": home, "CHECKPOINT_DISABLE": "1"}
	if v, ok := r.lookup("PATH"); ok {
		env["PATH"] = v
	}
	for _, k := range passThrough {
		if v, ok := r.lookup(k); ok {
			env[k] = v
		}
	}
	r.providerEnv(env)
	maps.Copy(env, r.allow.Values(r.stackOf(ws), r.lookup))
	if r.pgConn != "" {
		conn, err := r.terraformConn(ctx, ws)
		if err != nil {
			return nil, err
		}
		env["PG_CONN_STR"] = conn
	}
	return env, nil
}

// homeDir is terraform's HOME: one per instance, so nothing a run leaves there reaches another.
func (r *Runner) homeDir(ws Workspace) string {
	return filepath.Join(r.stateDir, "home", ws.Tenant, ws.Name)
}

// stackOf is the workspace's stack: the caller's, else the one Prepare recorded beside its files.
func (r *Runner) stackOf(ws Workspace) string {
	if ws.Stack != "" {
		return ws.Stack
	}
	return r.record(ws, StackFile)
}

// syncWriter serialises writes from concurrent commands onto one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// EnvRunMarker is set in the environment of each state-changing terraform command to a value of
// its own, which its providers and provisioners inherit: sweep finds what the run left behind by it.
// A TF_ name: no SLIPWAY_ variable reaches terraform.
const EnvRunMarker = "TF_RUN_MARKER"

// runMarker is a fresh value for EnvRunMarker.
func runMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
