package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// world is the real stack one chaos run shares: a dev server with a database file (so it
// can restart), PostgreSQL for terraform state, and a GitOps repo with the chaos stack.
type world struct {
	cfg      Config
	dir      string
	out      io.Writer
	self     string // this binary, re-run as the worker
	server   *devenv.Server
	port     int
	pg       *postgres.Server
	pgConn   string
	repo     string
	mirror   string // the packed provider mirror every worker installs from; "" when no kill point needs it
	temporal sdkclient.Client
	auditor  auditor
	keys     *codec.Keyring // the run's payload key; workers inherit it
	store    *store.PG      // the workers' shared plan and secret store
	argo     *argostack.Stack

	mu      sync.Mutex
	secrets map[string]string // every bootstrapped secret value → instance
}

func newWorld(ctx context.Context, cfg Config, dir string, out io.Writer) (_ *world, err error) {
	w := &world{cfg: cfg, dir: dir, out: out, secrets: map[string]string{}}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.self, err = os.Executable(); err != nil {
		return nil, err
	}
	if w.keys, err = runKey(); err != nil {
		return nil, err
	}
	for _, d := range []string{"logs", "state"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := w.startServer(ctx, 0); err != nil {
		return nil, err
	}
	if w.pg, err = postgres.Launch(); err != nil {
		return nil, err
	}
	if w.pgConn, err = w.pg.CreateDatabase("chaos"); err != nil {
		return nil, err
	}
	if w.store, err = store.OpenPG(ctx, w.pgConn, w.keys); err != nil {
		return nil, err
	}
	if cfg.Deployer == "argocd" {
		if w.argo, err = argostack.Start(ctx, argostack.Options{Dir: filepath.Join(dir, "argocd"), ToolsDir: devenv.ToolsDir()}); err != nil {
			return nil, err
		}
	}
	w.repo = filepath.Join(dir, "gitops")
	if err := seedRepo(w.repo); err != nil {
		return nil, err
	}
	if cfg.Phases["killpoints"] && slices.ContainsFunc(cfg.points(), KillPoint.needsProvider) {
		m, err := tfmirror.WritePacked(dir, tfmirror.Time())
		if err != nil {
			return nil, err
		}
		w.mirror = m.Dir
	}
	// The file exists from the start, so a sandboxed terraform can have it bound in.
	if err := os.WriteFile(w.effectsPath(), nil, 0o644); err != nil {
		return nil, err
	}
	w.auditor = auditor{effects: w.effectsPath(), repo: w.repo, pg: w.pg, db: "chaos"}
	opts, err := client.Options(client.WithHostPort(w.server.Address), client.WithLogger(logging.NewTemporal(logging.Nop())),
		client.WithIdentity(testsuite.PlatformOperator))
	if err != nil {
		return nil, err
	}
	if w.temporal, err = sdkclient.DialContext(ctx, opts); err != nil {
		return nil, err
	}
	return w, client.New(w.temporal, "chaos", opts.Namespace).EnsureSearchAttributes(ctx)
}

// runKey uses the configured payload key, or makes one for the run and hands it to the
// workers through the environment they inherit.
func runKey() (*codec.Keyring, error) {
	if os.Getenv(codec.EnvKey) == "" && os.Getenv(codec.EnvKeyFile) == "" {
		line, err := codec.Generate("chaos")
		if err != nil {
			return nil, err
		}
		if err := os.Setenv(codec.EnvKey, line); err != nil {
			return nil, err
		}
	}
	if os.Getenv(attest.EnvKey) == "" && os.Getenv(attest.EnvKeyFile) == "" {
		key, err := attest.Generate()
		if err != nil {
			return nil, err
		}
		if err := os.Setenv(attest.EnvKey, key); err != nil {
			return nil, err
		}
	}
	return codec.FromEnv()
}

// startServer starts the dev server on port (0: a free one) with the run's database file.
func (w *world) startServer(ctx context.Context, port int) error {
	srv, err := devenv.StartServer(ctx, devenv.ServerOptions{Headless: true, Port: port,
		DBFile: filepath.Join(w.dir, "temporal.db"), SearchAttributes: contract.SearchAttributeTypes,
		LogFile: filepath.Join(w.dir, "logs", "temporal.log")})
	if err != nil {
		return err
	}
	w.server = srv
	_, p, _ := strings.Cut(srv.Address, ":")
	_, err = fmt.Sscan(p, &w.port)
	return err
}

func (w *world) close() {
	if w.temporal != nil {
		w.temporal.Close()
	}
	if w.server != nil {
		_ = w.server.Stop()
	}
	if w.store != nil {
		w.store.Close()
	}
	if w.pg != nil {
		_ = w.pg.Close()
	}
	if w.argo != nil {
		_ = w.argo.Stop()
	}
}

// client is a slipway client on task queue tq.
func (w *world) client(tq string) *client.Client { return client.New(w.temporal, tq, "default") }

// seedRepo makes the GitOps repo with the example stack and the chaos stack: the
// example plus a resource whose apply and destroy take 2 s, so kills can land inside.
func seedRepo(dir string) error {
	files, err := examples.StackFiles("example")
	if err != nil {
		return err
	}
	seed := map[string][]byte{"README.md": []byte("# chaos GitOps repository\n"),
		"stacks/chaos/terraform/slow.tf.tmpl": []byte(slowTF)}
	for p, d := range files {
		seed["stacks/example/"+p] = d
		seed["stacks/"+stackChaos+"/"+p] = d
		seed["stacks/"+stackTime+"/"+p] = d
	}
	seed["stacks/"+stackTime+"/terraform/slow.tf.tmpl"] = []byte(slowTF)
	seed["stacks/"+stackTime+"/terraform/time.tf.tmpl"] = []byte(timeTF)
	// Chaos runs on the worker's terraform unless told otherwise (production on OpenTofu, the
	// lifecycle e2e on both).
	engine, err := testsuite.TestEngine("")
	if err != nil {
		return err
	}
	if engine != "" {
		for _, st := range []string{stackChaos, stackTime} {
			seed["stacks/"+st+"/schema.yaml"] = testsuite.WithEngine(seed["stacks/"+st+"/schema.yaml"], engine)
		}
	}
	if _, err = localgit.Init(dir, seed); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "hooks", "reference-transaction"), []byte(gitHangHook), 0o755)
}

// gitHangHook holds a worker armed for a "git" kill point inside git's update of main, after
// git created refs/heads/main.lock and before it renames it, and tells the worker to die there.
const gitHangHook = `#!/bin/sh
[ "$1" = prepared ] && [ -n "$` + envGitHang + `" ] && [ -e "$` + envGitHang + `.armed" ] || exit 0
grep -q ' refs/heads/main$' || exit 0
touch "$` + envGitHang + `"
exec sleep 60
`

const slowTF = `# Chaos: applies and destroys take a while, so a kill can land in the middle of one.
resource "terraform_data" "rollout" {
  triggers_replace = [{{ .Params.replicas }}]
  input            = "{{ .Tenant }}/{{ .Name }}"
  # Each run that finishes leaves a line: the chaos command counts real applies and destroys.
  provisioner "local-exec" {
    command = "sleep 2 && echo 'apply {{ .Tenant }}/{{ .Name }}' >> \"$${CHAOS_EFFECTS:-/dev/null}\""
  }
  provisioner "local-exec" {
    when    = destroy
    command = "sleep 2 && echo 'destroy ${self.input}' >> \"$${CHAOS_EFFECTS:-/dev/null}\""
  }
}
`

const timeTF = `# Chaos: the real provider hashicorp/time, which an init unpacks into the worker's plugin cache.
terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}

resource "time_static" "born" {}
`

// workerSpec is one worker process: its task queue, state dir and chaos settings, and the
// stack its lifecycles use ("": the chaos stack).
type workerSpec struct {
	name, taskQueue, stateDir, stack string
	env                              []string
}

func (w *world) startWorker(s workerSpec) (*proc.Process, error) {
	cmd := exec.Command(w.self)
	cmd.Env = append(os.Environ(), envRole+"="+roleWorker,
		"TEMPORAL_ADDRESS="+w.server.Address, "SLIPWAY_TASK_QUEUE="+s.taskQueue,
		"SLIPWAY_GITOPS_REPO="+w.repo, "SLIPWAY_STATE_DIR="+s.stateDir,
		"SLIPWAY_TF_PG_CONN="+w.pgConn, envEffects+"="+w.effectsPath(),
		"SLIPWAY_STACK_ENV=*="+envEffects, "SLIPWAY_TERRAFORM_SANDBOX_BINDS="+w.effectsPath(), "SLIPWAY_LOG_LEVEL=info")
	if w.argo != nil {
		cmd.Env = append(cmd.Env, "SLIPWAY_DEPLOYER=argocd", "SLIPWAY_ARGOCD_URL="+w.argo.ArgoURL, "SLIPWAY_ARGOCD_TOKEN="+w.argo.ArgoToken,
			"SLIPWAY_KUBECONFIG="+w.argo.Kubeconfig)
	} else {
		cmd.Env = append(cmd.Env, "SLIPWAY_DEPLOYER=none")
	}
	if w.mirror != "" {
		cmd.Env = append(cmd.Env, "SLIPWAY_PROVIDER_MIRROR="+w.mirror)
	}
	cmd.Env = append(cmd.Env, s.env...)
	return proc.Start(s.name, cmd, w.logPath(s.name))
}

// envEffects names the file the chaos stack's provisioners append to; terraform sees it because
// the workers' SLIPWAY_STACK_ENV allows it, as an operator allows a stack its credentials.
const envEffects = "CHAOS_EFFECTS"

func (w *world) effectsPath() string { return filepath.Join(w.dir, "effects.log") }

func (w *world) logPath(name string) string { return filepath.Join(w.dir, "logs", name+".log") }

// startLane starts a worker for spec and returns it with a client on its task queue.
func (w *world) startLane(spec workerSpec) (*proc.Process, *client.Client, error) {
	p, err := w.startWorker(spec)
	if err != nil {
		return nil, nil, err
	}
	return p, w.client(spec.taskQueue), nil
}

// lifecycle runs ref through lifecycleOps on spec's worker and, after the deploy, records
// the secrets it bootstrapped for the secrets phase; afterOp (optional) runs after each op.
func (w *world) lifecycle(ctx context.Context, c *client.Client, spec workerSpec, ref contract.Ref, afterOp func(op int)) Outcome {
	stack := spec.stack
	if stack == "" {
		stack = stackChaos
	}
	return runLifecycle(ctx, c, ref, stack, w.cfg.OpTimeout, func(op int) {
		if op == opDeploy {
			w.rememberSecrets(ctx, ref)
		}
		if afterOp != nil {
			afterOp(op)
		}
	})
}

// rememberSecrets records the instance's bootstrapped secrets for the secrets phase.
func (w *world) rememberSecrets(ctx context.Context, ref contract.Ref) {
	vals, err := w.store.Get(ctx, ref.Tenant, ref.Name)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range vals {
		w.secrets[v] = ref.String()
	}
}

func (w *world) logf(format string, args ...any) {
	if w.cfg.Verbose {
		fmt.Fprintf(w.out, time.Now().Format("15:04:05 ")+format+"\n", args...)
	}
}
