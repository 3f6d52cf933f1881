package terraform

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/credentials"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/stackenv"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// requireBwrap returns bubblewrap when it works here; else the test skips unless
// SLIPWAY_REQUIRE_BWRAP=1, where it fails.
func requireBwrap(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bwrap")
	if err == nil {
		err = exec.Command(p, "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true").Run()
	}
	if err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_BWRAP") == "1" {
			t.Fatal(err)
		}
		t.Skip("bubblewrap: ", err)
	}
	return p
}

// TestSandboxedLocalExecSeesNothingOfTheWorker: a local-exec reads the worker's environment
// through /proc, its files, and leaves a setsid child; in the sandbox none of it works.
func TestSandboxedLocalExecSeesNothingOfTheWorker(t *testing.T) {
	bin := requireBwrap(t)
	t.Setenv("SLIPWAY_CODEC_KEY", "k1:workerkeyvalue")
	secretDir := t.TempDir()
	keyFile := filepath.Join(secretDir, "codec.keys")
	require.NoError(t, os.WriteFile(keyFile, []byte("k1:filekeyvalue\n"), 0o600))
	token := fmt.Sprintf("3%06d", time.Now().UnixNano()%1000000)
	out := &safeBuffer{}
	r := newRunner(t, WithSandbox(bin), WithOutput(out))
	ws := Workspace{Tenant: "acme", Name: "web"}
	ctx := context.Background()
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
      echo "worker-environ: $(cat /proc/%d/environ 2>&1 | tr -c '[:print:]' ' ')"
      echo "key-file: $(cat %s 2>&1)"
      echo "processes: $(ls /proc | grep -cE '^[0-9]+$')"
      setsid sh -c 'exec sleep %s' >/dev/null 2>&1 </dev/null &
      echo started
    EOT
  }
}
`, os.Getpid(), keyFile, token))})
	p, err := r.Plan(ctx, ws, "probe", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	got := out.String()
	t.Log(got)
	require.Contains(t, got, "started", "the provisioner ran")
	assert.NotContains(t, got, "workerkeyvalue")
	assert.NotContains(t, got, "filekeyvalue")
	assert.Contains(t, got, "key-file: cat: "+keyFile+": No such file or directory")
	assert.Contains(t, got, "worker-environ: cat: /proc/"+strconv.Itoa(os.Getpid())+"/environ: No such file or directory")
	assert.Eventually(t, func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), "sleep\x00"+token) {
				return false
			}
		}
		return true
	}, 5*time.Second, 50*time.Millisecond, "the setsid child died with terraform")
	res, err := r.Resources(ctx, ws)
	require.NoError(t, err)
	assert.Len(t, res, 1, "state is read back through the sandbox too")
}

// TestSandboxedCancelStillInterrupts: a cancel reaches terraform inside the sandbox as SIGINT,
// so it releases its lock and exits as it does outside.
func TestSandboxedCancelStillInterrupts(t *testing.T) {
	bin := requireBwrap(t)
	pg := postgres.Start(t)
	for name, opts := range map[string][]Option{
		"local": nil,
		"pg":    {WithPGBackend(pg.CreateDB(t, "tfstate")), WithPGRoles(testKeyring(t))},
	} {
		t.Run(name, func(t *testing.T) {
			out := &safeBuffer{}
			r := newRunner(t, append(opts, WithSandbox(bin), WithOutput(out))...)
			lockedApplyThenCancel(t, r, Workspace{Tenant: "acme", Name: "locked"})
			assert.Contains(t, out.String(), "Interrupt received", "terraform itself got the SIGINT")
		})
	}
}

// A path the operator binds is writable in the sandbox; anything else of the host is not there.
func TestSandboxBinds(t *testing.T) {
	bin := requireBwrap(t)
	logDir, other := t.TempDir(), t.TempDir()
	r := newRunner(t, WithSandbox(bin, logDir))
	ws := Workspace{Tenant: "acme", Name: "web"}
	ctx := context.Background()
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(fmt.Sprintf(`
resource "terraform_data" "log" {
  input = "x"
  provisioner "local-exec" {
    command = "echo ran >> %s/effects.log; echo ran >> %s/effects.log || true"
  }
}
`, logDir, other))})
	p, err := r.Plan(ctx, ws, "log", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(logDir, "effects.log"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(got))
	assert.NoFileExists(t, filepath.Join(other, "effects.log"))

	_, err = New(t.TempDir(), WithBinary(os.Args[0]), WithSandbox(bin, "relative/dir"))
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, EnvSandboxBinds, ie.Field)
}

// A worker without a working sandbox runs no terraform command: each is refused, NotAllowed,
// naming the setting that would run it unconfined. One told to run it unconfined warns each time.
func TestNoSandboxRefusesOrWarns(t *testing.T) {
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	files := map[string][]byte{"main.tf": []byte(`resource "terraform_data" "x" { input = "x" }` + "\n")}

	r := newRunner(t, WithSandboxRefused("bwrap: not found"))
	_, err := r.Plan(ctx, ws, "x", false)
	var refused *SandboxRefusedError
	require.ErrorAs(t, err, &refused)
	assert.ErrorIs(t, err, errkind.NotAllowed)
	assert.Contains(t, err.Error(), "bwrap: not found")
	assert.Contains(t, err.Error(), "SLIPWAY_TERRAFORM_SANDBOX=none-insecure")

	var warned []string
	r = newRunner(t, WithUnconfined(func(_ context.Context, ws Workspace, command string) {
		warned = append(warned, ws.String()+" "+command)
	}))
	ready(t, r, ws, files)
	_, err = r.Plan(ctx, ws, "x", false)
	require.NoError(t, err)
	assert.Contains(t, warned, "acme/web init")
	assert.Contains(t, warned, "acme/web plan")
}

// TestTerraformCannotRewriteWhatPrepareRecorded: an apply's local-exec writes another stack and
// its credential under the records' names in its working directory; the plans and applies that
// follow, with the workspace as the activities name it (no stack, no credentials), and the plan
// they store, still get stack db's. Before the records left the working directory, the second
// apply's environment held stack web's credential and allow-listed variable.
func TestTerraformCannotRewriteWhatPrepareRecorded(t *testing.T) {
	bin := requireBwrap(t)
	t.Setenv("WEB_SECRET", "websecretvalue")
	t.Setenv("WEB_ONLY_VAR", "webonlyvarvalue")
	creds, err := credentials.Parse("creds.yaml", []byte("webcred: {env: WEB_SECRET, as: WEB_TOKEN, stacks: [web]}\n"), os.LookupEnv, os.Environ())
	require.NoError(t, err)
	allow, err := stackenv.Parse("web=WEB_ONLY_VAR")
	require.NoError(t, err)
	plans := localPlans{dir: t.TempDir()}
	r := newRunner(t, WithSandbox(bin), WithCredentials(creds), WithStackEnv(allow, nil), WithPlanStore(plans))
	ctx := context.Background()
	ready(t, r, Workspace{Tenant: "acme", Name: "db", Stack: "db", Credentials: []string{}}, map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "probe" {
  triggers_replace = timestamp()
  provisioner "local-exec" {
    command = "env >> probe.out; echo web > slipway_stack; echo webcred > slipway_credentials; echo readwrite > .slipway-lockfile; echo REWROTE >> probe.out"
  }
}
`)})
	ws := Workspace{Tenant: "acme", Name: "db"}
	for _, name := range []string{"first", "second"} {
		p, err := r.Plan(ctx, ws, name, false)
		require.NoError(t, err)
		_, err = r.Apply(ctx, ws, p)
		require.NoError(t, err)
	}
	got, err := os.ReadFile(filepath.Join(r.Dir(ws), "probe.out"))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(got), "REWROTE"), "both applies ran the local-exec and it wrote the names")
	assert.NotContains(t, string(got), "websecretvalue", "stack db's terraform got stack web's credential")
	assert.NotContains(t, string(got), "webonlyvarvalue", "stack db's terraform got stack web's variable")
	saved, err := plans.LoadPlan(ctx, ws, "second")
	require.NoError(t, err)
	assert.Equal(t, "db\n", string(saved.Files[StackFile]), "the stored plan records stack db")
	_, named := saved.Files[CredentialsFile]
	assert.False(t, named, "the stored plan names no credential")
	assert.Equal(t, "db", r.stackOf(ws))
	assert.Empty(t, r.credentialsOf(ws))
}

// TestAStoredPlanNeverFollowsASymlinkTerraformLeft: terraform's code replaces the lock file with a
// symlink to a file only the worker can read (another instance's credential, a key file). The
// plan fails naming the lock file, nothing is stored, and the next Prepare removes the link.
// Before, the stored plan carried the file's content as the lock file, for the worker that
// applies it to write into the instance's working directory.
func TestAStoredPlanNeverFollowsASymlinkTerraformLeft(t *testing.T) {
	bin := requireBwrap(t)
	plans := localPlans{dir: t.TempDir()}
	r := newRunner(t, WithSandbox(bin), WithPlanStore(plans))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, twoResources("one"))
	secret := filepath.Join(t.TempDir(), "beta-credential")
	require.NoError(t, os.WriteFile(secret, []byte("betasecretvalue\n"), 0o600))
	lock := filepath.Join(r.Dir(ws), depLockFile)
	require.NoError(t, os.Symlink(secret, lock))

	_, err := r.Plan(ctx, ws, "p1", false)
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, depLockFile, bad.Value)
	assert.NotContains(t, err.Error(), "betasecretvalue")
	_, err = plans.LoadPlan(ctx, ws, "p1")
	var none *PlanNotStoredError
	assert.ErrorAs(t, err, &none, "nothing stored")

	require.NoError(t, r.Prepare(ctx, ws, twoResources("one")))
	_, err = os.Lstat(lock)
	assert.ErrorIs(t, err, os.ErrNotExist, "Prepare removed the link")
	_, err = r.Plan(ctx, ws, "p2", false)
	require.NoError(t, err)
}
