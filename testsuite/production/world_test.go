package production

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
	"github.com/slipway-dev/slipway/testsuite/postgres"
	tc "github.com/slipway-dev/slipway/testsuite/temporalcluster"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

const (
	taskQueue = "production"
	repoName  = "gitops"
	// envEffects names the file the prod stack's provisioners append a line to per real
	// create and destroy, so duplicates are counted in what terraform really did.
	envEffects = "CHAOS_EFFECTS"
)

// world is the production topology on this host.
type world struct {
	t        *testing.T
	dir      string
	pg       *postgres.Server
	conn     string // terraform state and the shared store
	temporal *temporalcluster.Cluster
	gitea    *giteaserver.Server
	argo     *cluster.Stack
	keys     *codec.Keyring
	store    *store.PG
	client   *client.Client
	effects  string
	// idp is the identity provider the cluster's authorization trusts; nil = authorization off.
	idp        *oidcprovider.Provider
	authzSetup time.Duration // starting it
	// mirror is the filesystem provider mirror every worker installs hashicorp/time from.
	mirror string

	mu      sync.Mutex
	workers []*worker
	killed  map[int]bool // every process that died with a killed worker host
}

// worker is one slipway-worker process: one host with its own disk.
type worker struct {
	name, stateDir string
	proc           *proc.Process
}

func newWorld(t *testing.T, workers int) *world {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "slipway-production-")
	require.NoError(t, err)
	w := &world{t: t, dir: dir, killed: map[int]bool{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker logs and the effects log kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	w.mirror = tfmirror.Layout(t, tfmirror.Time()).Dir
	w.effects = filepath.Join(w.dir, "effects.log")
	// The file exists from the start, so a sandboxed terraform can have it bound in.
	require.NoError(t, os.WriteFile(w.effects, nil, 0o644))
	line, err := codec.Generate("prod")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, line)
	t.Setenv(codec.EnvKeyFile, "")
	w.keys, err = codec.FromEnv()
	require.NoError(t, err)
	// The workers and every client of the test sign and verify with one attestation key.
	akey, err := attest.Generate()
	require.NoError(t, err)
	t.Setenv(attest.EnvKey, akey)
	t.Setenv(attest.EnvKeyFile, "")

	begin := time.Now()
	w.pg = postgres.Start(t)
	w.conn = w.pg.CreateDB(t, "slipway")
	// The identity provider first: the nodes fetch its keys when they start.
	o := tc.Options(w.pg, 2, "")
	o.Authorization = w.startIdentityProvider()
	w.temporal = tc.StartWith(t, o)
	w.gitea = giteaserver.Start(t)
	w.seedRepo()
	w.argo = cluster.Start(t)
	w.store, err = store.OpenPG(ctx, w.conn, w.keys)
	require.NoError(t, err)
	t.Cleanup(w.store.Close)
	opts := []client.Option{client.WithHostPort(w.temporal.Frontend()),
		client.WithKeyring(w.keys), client.WithLogger(logging.NewTemporal(logging.Nop())),
		client.WithIdentity(testsuite.PlatformOperator)}
	if w.idp != nil {
		opts = append(opts, w.serviceToken())
	}
	w.client, err = client.Dial(ctx, taskQueue, opts...)
	require.NoError(t, err)
	t.Cleanup(w.client.Close)
	require.NoError(t, os.MkdirAll(filepath.Join(w.dir, "logs"), 0o755))
	for i := range workers {
		wk := &worker{name: fmt.Sprintf("worker-%d", i+1), stateDir: filepath.Join(w.dir, fmt.Sprintf("host-%d", i+1))}
		w.workers = append(w.workers, wk)
		require.NoError(t, w.start(wk))
	}
	t.Cleanup(w.stopWorkers)
	authz := "authorization off"
	if w.idp != nil {
		authz = fmt.Sprintf("authorization on (JWT from %s, provider up in %v)", w.idp.Issuer, w.authzSetup.Round(time.Millisecond))
	}
	t.Logf("production topology up in %v: PostgreSQL, Temporal cluster (2 nodes) at %s, %s, Gitea, ArgoCD, %d workers",
		time.Since(begin).Round(time.Millisecond), w.temporal.Frontend(), authz, workers)
	return w
}

// seedRepo pushes the prod stack to Gitea: the example stack (which declares secrets) plus
// a resource whose provisioners record every real create and destroy.
func (w *world) seedRepo() {
	clone := w.gitea.CreateRepo(w.t, repoName)
	push := strings.Replace(clone, "://", "://"+w.gitea.AdminUser+":"+w.gitea.Token+"@", 1)
	files, err := examples.StackFiles("example")
	require.NoError(w.t, err)
	seed := map[string][]byte{"stacks/prod/terraform/effects.tf.tmpl": []byte(effectsTF),
		"stacks/prod/terraform/time.tf.tmpl": []byte(timeTF)}
	for p, d := range files {
		seed["stacks/prod/"+p] = d
	}
	// Production runs on OpenTofu (chaos on terraform, the lifecycle e2e on both).
	engine, err := testsuite.TestEngine("opentofu")
	require.NoError(w.t, err)
	seed["stacks/prod/schema.yaml"] = testsuite.WithEngine(seed["stacks/prod/schema.yaml"], engine)
	w.t.Logf("the prod stack runs on %s", engine)
	testsuite.PushFiles(w.t, push, "add the prod stack", seed)
}

// effectsTF: every real create and destroy of the rollout leaves a line naming the terraform
// process that ran it ($PPID of the provisioner's shell), so a line whose terraform was killed
// with its host (before terraform persisted the state) is told apart from a duplicate.
const effectsTF = `# Every real create and destroy of the rollout leaves a line: the test counts duplicates.
resource "terraform_data" "rollout" {
  triggers_replace = [{{ .Params.replicas }}]
  input            = "{{ .Tenant }}/{{ .Name }}"
  provisioner "local-exec" {
    command = "sleep 1 && echo \"apply {{ .Tenant }}/{{ .Name }} pid=$PPID\" >> \"$${CHAOS_EFFECTS:-/dev/null}\""
  }
  provisioner "local-exec" {
    when    = destroy
    command = "sleep 1 && echo \"destroy ${self.input} pid=$PPID\" >> \"$${CHAOS_EFFECTS:-/dev/null}\""
  }
}
`

// start runs wk's slipway-worker against the cluster's frontend, as a host would.
func (w *world) start(wk *worker) error {
	cmd := exec.Command(workerBin)
	cmd.Env = append(os.Environ(),
		"TEMPORAL_ADDRESS="+w.temporal.Frontend(), "TEMPORAL_NAMESPACE=default", "SLIPWAY_TASK_QUEUE="+taskQueue,
		"SLIPWAY_STATE_DIR="+wk.stateDir, "SLIPWAY_TF_PG_CONN="+w.conn, "SLIPWAY_STORE_PG_CONN="+w.conn,
		"SLIPWAY_FORGE=gitea", "SLIPWAY_FORGE_URL="+w.gitea.URL, "SLIPWAY_FORGE_REPO="+w.gitea.AdminUser+"/"+repoName,
		"SLIPWAY_FORGE_TOKEN="+w.gitea.Token, "SLIPWAY_DEPLOYER=argocd", "SLIPWAY_ARGOCD_URL="+w.argo.ArgoURL,
		"SLIPWAY_ARGOCD_TOKEN="+w.argo.ArgoToken, "SLIPWAY_KUBECONFIG="+w.argo.Kubeconfig, envEffects+"="+w.effects,
		"SLIPWAY_STACK_ENV=*="+envEffects, "SLIPWAY_PROVIDER_MIRROR="+w.mirror, "SLIPWAY_TERRAFORM_SANDBOX_BINDS="+w.effects, "SLIPWAY_LOG_LEVEL=info")
	cmd.Env = append(cmd.Env, w.serviceEnv()...)
	// The effects log names each terraform by its host pid ($PPID), which the crashes are matched
	// on; in bubblewrap it would be the sandbox's own pid. Confinement has its own tests.
	cmd.Env = append(cmd.Env, "SLIPWAY_TERRAFORM_SANDBOX=none-insecure")
	p, err := proc.Start(wk.name, cmd, filepath.Join(w.dir, "logs", wk.name+".log"))
	if err != nil {
		return err
	}
	w.mu.Lock()
	wk.proc = p
	w.mu.Unlock()
	return nil
}

// kill crashes wk's host: every process under the worker (terraform, its provider and its
// provisioners, in process groups of their own, included) stops at once and is SIGKILLed. It
// says whether a terraform apply or destroy, and the provider, were running.
func (w *world) kill(wk *worker) (applying, provider bool, err error) {
	w.mu.Lock()
	p := wk.proc
	w.mu.Unlock()
	applying, provider = inFlight(p.Pid())
	pids, err := p.Crash()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pid := range pids {
		w.killed[pid] = true
	}
	return applying, provider, err
}

func (w *world) stopWorkers() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wk := range w.workers {
		if err := wk.proc.Stop(); err != nil {
			w.t.Errorf("stop %s: %v", wk.name, err)
		}
		if w.t.Failed() {
			w.t.Logf("%s log tail:\n%s", wk.name, proc.LogTail(wk.proc.LogPath))
		}
	}
}
