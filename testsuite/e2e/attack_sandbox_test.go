package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
)

// requireWorkingBwrap skips unless bubblewrap works here (fails with SLIPWAY_REQUIRE_BWRAP=1).
func requireWorkingBwrap(t *testing.T) {
	t.Helper()
	if _, err := hooks.SandboxFromEnv(t.Context(), func(k string) string {
		if k == hooks.EnvSandbox {
			return hooks.SandboxBwrap
		}
		return os.Getenv(k)
	}); err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_BWRAP") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// startDefaultWorker runs the real worker binary on e's queue and state dir with the
// environment given and none of the test's terraform sandbox settings: the worker's defaults.
func startDefaultWorker(t *testing.T, e *testsuite.Env, bin string, env ...string) *proc.Process {
	t.Helper()
	drop := map[string]bool{terraform.EnvSandbox: true, terraform.EnvSandboxBinds: true}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
		if k == codec.EnvKeyFile {
			drop[codec.EnvKey] = true
		}
	}
	var base []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			base = append(base, kv)
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = append(base, append([]string{"TEMPORAL_ADDRESS=" + e.Address, "SLIPWAY_TASK_QUEUE=" + e.TaskQueue,
		"SLIPWAY_GITOPS_REPO=" + e.GitOpsRepo, "SLIPWAY_STATE_DIR=" + e.StateDir, "SLIPWAY_DEPLOYER=none"}, env...)...)
	p, err := proc.Start("worker", cmd, filepath.Join(t.TempDir(), "worker.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// sandboxProbeTF is a tenant's configuration looking for slipway's keys from a local-exec: every
// process's environment, the key files, the worker's state dir, another instance's working
// directory and HOME. It writes what it found into its own working directory.
const sandboxProbeTF = `resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
      {
        echo "uid: $(id -u)"
        echo "pids: $(ls /proc | grep -E '^[0-9]+$' | tr '\n' ' ')"
        for p in /proc/[0-9]*; do echo "environ $p: $(tr -c '[:print:]' ' ' < $p/environ 2>&1)"; done
        echo "attest-file: $(cat ATTEST_FILE 2>&1)"
        echo "codec-file: $(cat CODEC_FILE 2>&1)"
        echo "state-dir: $(ls -a STATE_DIR 2>&1 | tr '\n' ' ')"
        echo "gitops: $(ls STATE_DIR/gitops 2>&1 | tr '\n' ' ')"
        echo "tenant-work: $(ls STATE_DIR/work/acme 2>&1 | tr '\n' ' ')"
        echo "victim-work: $(cat STATE_DIR/work/acme/victim/main.tf 2>&1 | tr '\n' ' ')"
        echo "victim-home: $(ls -a STATE_DIR/home/acme/victim 2>&1 | tr '\n' ' ')"
        echo "worker-environ: $(tr -c '[:print:]' ' ' < /proc/WORKER_PID/environ 2>&1)"
      } > probe.out 2>&1
    EOT
  }
}
`

// victimTF writes what its own terraform sees into its working directory.
const victimTF = `resource "terraform_data" "victim" {
  input = "x"
  provisioner "local-exec" {
    command = "env > victim.env"
  }
}
`

// Issue 36, case 1 (P1): a tenant's HCL runs on a worker with its DEFAULT settings (no
// SLIPWAY_TERRAFORM_SANDBOX), the attestation key in the worker's environment as the review found
// it, the payload key in a file, a token, and another stack's credential in its environment. Its
// local-exec reads every /proc/*/environ, both key files, the worker's state dir and another
// instance's working directory and HOME. It finds none of them: it runs as nobody, sees only its
// own few processes, and of the state dir only its own instance's directories. The other stack's
// terraform still gets its credential, and the running worker's /proc/<pid>/environ holds no key.
func TestAttackTenantTerraformFindsNoKey(t *testing.T) {
	requireWorkingBwrap(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	bin := buildWorker(t)
	attestKey, codecKey := os.Getenv(attest.EnvKey), os.Getenv(codec.EnvKey)
	require.NotEmpty(t, attestKey)
	require.NotEmpty(t, codecKey)
	stamp := fmt.Sprint(time.Now().UnixNano())
	argoToken, cloudToken := "argotoken-attack-"+stamp, "cloudtoken-attack-"+stamp
	codecFile := filepath.Join(t.TempDir(), "codec.keys")
	require.NoError(t, os.WriteFile(codecFile, []byte(codecKey+"\n"), 0o600))
	attestFile := filepath.Join(e.StateDir, attest.KeyFileName) // where slipway dev keeps it
	require.NoError(t, os.WriteFile(attestFile, []byte(attestKey+"\n"), 0o600))

	w := startDefaultWorker(t, e, bin, codec.EnvKeyFile+"="+codecFile, attest.EnvKey+"="+attestKey,
		"SLIPWAY_ARGOCD_TOKEN="+argoToken, "CLOUD_TOKEN="+cloudToken, "SLIPWAY_STACK_ENV=victim=CLOUD_TOKEN")
	probe := strings.NewReplacer("ATTEST_FILE", attestFile, "CODEC_FILE", codecFile, "STATE_DIR", e.StateDir,
		"WORKER_PID", strconv.Itoa(w.Pid())).Replace(sandboxProbeTF)
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack with a credential and one that hunts for keys", map[string][]byte{
		"stacks/victim/schema.yaml":             []byte(brokenSchema),
		"stacks/victim/terraform/main.tf.tmpl":  []byte(victimTF),
		"stacks/victim/manifests/app.yaml.tmpl": []byte(brokenManifest),
		"stacks/evil/schema.yaml":               []byte(brokenSchema),
		"stacks/evil/terraform/main.tf.tmpl":    []byte(probe),
		"stacks/evil/manifests/app.yaml.tmpl":   []byte(brokenManifest),
	})

	e.MustCLI(0, "create", "acme/victim", "-f", writeFile(t, "stack: victim\nparameters:\n  greeting: hi\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/victim", "--wait")
	victimEnv := readOut(t, filepath.Join(e.StateDir, "work", "acme", "victim"), "victim.env")
	assert.Contains(t, victimEnv, "CLOUD_TOKEN="+cloudToken, "the stack the credential is for gets it in the sandbox")

	e.MustCLI(0, "create", "acme/evil", "-f", writeFile(t, "stack: evil\nparameters:\n  greeting: hi\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/evil", "--wait")
	found := readOut(t, filepath.Join(e.StateDir, "work", "acme", "evil"), "probe.out")
	t.Log(found)

	for name, secret := range map[string]string{"attestation key": attestKey, "payload key": codecKey,
		"argocd token": argoToken, "another stack's credential": cloudToken} {
		assert.NotContains(t, found, secret, "the tenant's terraform found the %s", name)
	}
	assert.NotContains(t, found, attest.EnvKey)
	assert.Contains(t, found, "uid: 65534\n", "terraform runs as nobody")
	pids := regexp.MustCompile(`pids: ([0-9 ]*)\n`).FindStringSubmatch(found)
	require.NotNil(t, pids, "the probe listed /proc")
	for _, p := range strings.Fields(pids[1]) {
		n, _ := strconv.Atoi(p)
		assert.Less(t, n, 20, "a pid of another namespace: %s", pids[1])
	}
	assert.LessOrEqual(t, len(strings.Fields(pids[1])), 8, "only its own few processes: %s", pids[1])
	assert.Contains(t, found, "attest-file: cat: "+attestFile+": No such file or directory")
	assert.Contains(t, found, "codec-file: cat: "+codecFile+": No such file or directory")
	assert.Contains(t, found, "gitops: ls: cannot access '"+filepath.Join(e.StateDir, "gitops")+"': No such file or directory")
	assert.Contains(t, found, "tenant-work: evil \n", "another instance's working directory is not there")
	assert.Contains(t, found, "victim-work: cat: "+filepath.Join(e.StateDir, "work", "acme", "victim", "main.tf")+": No such file or directory")
	assert.Contains(t, found, "victim-home: ls: cannot access")
	assert.Contains(t, found, fmt.Sprintf("cannot open /proc/%d/environ: No such file", w.Pid()), "the worker is not in its view")
	state := regexp.MustCompile(`state-dir: ([^\n]*)\n`).FindStringSubmatch(found)
	require.NotNil(t, state)
	assert.NotContains(t, state[1], attest.KeyFileName)
	assert.NotContains(t, state[1], "gitops")

	// The running worker's own environment block, as any process of its user reads it.
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", w.Pid()))
	require.NoError(t, err)
	for _, secret := range []string{attestKey, argoToken, cloudToken, attest.EnvKey, "SLIPWAY_ARGOCD_TOKEN"} {
		assert.NotContains(t, string(environ), secret, "the worker's /proc/<pid>/environ")
	}
}

// A worker where bubblewrap does not work, and that was not told to run terraform unconfined,
// says so at start and refuses the terraform step, naming the setting; the deploy fails without
// terraform having run.
func TestAttackWorkerWithoutBwrapRefusesTerraform(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	bin := buildWorker(t)
	marker := filepath.Join(t.TempDir(), "ran")
	w := startDefaultWorker(t, e, bin, hooks.EnvBwrap+"=/nonexistent/bwrap")
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack whose terraform leaves a mark", map[string][]byte{
		"stacks/mark/schema.yaml": []byte(brokenSchema),
		"stacks/mark/terraform/main.tf.tmpl": []byte(`resource "terraform_data" "mark" {
  input = "x"
  provisioner "local-exec" {
    command = "echo ran > ` + marker + `"
  }
}
`),
		"stacks/mark/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	e.MustCLI(0, "create", "acme/mark", "-f", writeFile(t, "stack: mark\nparameters:\n  greeting: hi\n"), "--wait")
	e.MustCLI(1, "deploy", "acme/mark", "--wait")
	st := e.Status("acme/mark")
	require.NotNil(t, st.Failure)
	msg := strings.Join(strings.Fields(st.Failure.Error), " ")
	t.Log(msg)
	assert.Contains(t, msg, "terraform refused on this worker")
	assert.Contains(t, msg, "SLIPWAY_TERRAFORM_SANDBOX=none-insecure")
	assert.NoFileExists(t, marker, "terraform never ran")
	log, err := os.ReadFile(w.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "terraform steps are REFUSED", "the worker said so at start")
}
