package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// probeStack's terraform is what a hostile configuration does with a local-exec: it writes its
// environment, its parent's, and what its PG_CONN_STR reaches into outDir/<stack>.*. Its drain
// hook tries the worker's processes, environment and files and leaves a setsid child behind.
func probeStack(name, outDir, drain string) map[string][]byte {
	dir := "stacks/" + name + "/"
	out := outDir + "/" + name
	return map[string][]byte{
		dir + "schema.yaml": []byte(`description: terraform and a hook that try to reach the worker
parameters:
  - name: region
    type: string
    required: true
hooks:
  drain: {exec: hooks/drain.sh, deadline: 1m}
`),
		dir + "terraform/main.tf.tmpl": []byte(`resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
      env > ` + out + `.env
      cat /proc/$PPID/environ > ` + out + `.parent-env
      psql "$PG_CONN_STR" -Atc 'select count(*) from slipway_conf_a.states' > ` + out + `.own-state 2>&1 || true
      psql "$PG_CONN_STR" -Atc 'select count(*) from slipway_conf_b.states' > ` + out + `.other-state 2>&1 || true
      psql "$PG_CONN_STR" -Atc 'select count(*) from slipway_secrets' > ` + out + `.store 2>&1 || true
      psql "$PG_CONN_STR" -Atc 'select count(*) from slipway_terraform_roles' > ` + out + `.roles 2>&1 || true
    EOT
  }
}
`),
		dir + "manifests/app.yaml.tmpl": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: {{ .Namespace }}\n"),
		dir + "hooks/drain.sh":          []byte(drain),
	}
}

// drainProbe is the hostile drain hook: it reports what it can see, starts a child that leaves
// its process group, waits until that child runs, and answers done.
func drainProbe(keyFile, stateDir, token string) string {
	return fmt.Sprintf(`#!/bin/sh
echo "parent-environ: $(tr '\0' ' ' < /proc/$PPID/environ)"
echo "processes: $(ls /proc | grep -cE '^[0-9]+$')"
echo "key-file: $(cat %s 2>&1)"
echo "state-dir: $(ls %s 2>&1)"
echo "uid: $(id -u)"
echo "region: $SLIPWAY_PARAM_REGION"
echo "cloud: ${CLOUD_TOKEN:-unset}"
setsid sh -c 'exec sleep %s' >/dev/null 2>&1 </dev/null &
up() { for f in /proc/[0-9]*/cmdline; do [ "$(tr '\0' ' ' < $f 2>/dev/null)" = "sleep %s " ] && return 0; done; return 1; }
until up; do sleep 0.05; done
echo child-up
echo 0
`, keyFile, stateDir, token, token)
}

// hostProcessWith reports whether a live process on this host has token in its command line.
func hostProcessWith(token string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err == nil && strings.Contains(string(cmdline), token) && !strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	return false
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err, name)
	return string(b)
}

// Worker confinement, end to end on a real worker, terraform, PostgreSQL (asking roles for
// their passwords, as in production) and bubblewrap:
//   - terraform's local-exec sees none of the worker's variables, its stack's allowed variable
//     and not another stack's, and a PG_CONN_STR of the instance's own role, which reads its
//     own state and neither another instance's nor slipway's store or role table;
//   - the drain hook (exec, in bwrap) sees no worker environment, process or file, gets the
//     parameters as SLIPWAY_PARAM_*, and its setsid child dies with it;
//   - deprovision drops the instance's role.
func TestConfinementOfTerraformAndHooks(t *testing.T) {
	requireWorkingBwrap(t)
	pg := postgres.StartWithPasswords(t)
	conn := pg.CreateDB(t, "tfstate")
	const argoToken, pgPassword, cloudToken = "argotoken-e2e-value", "pgpassword-e2e-value", "cloudtoken-e2e-value"
	t.Setenv("SLIPWAY_ARGOCD_TOKEN", argoToken)
	t.Setenv("PGPASSWORD", pgPassword)
	t.Setenv("CLOUD_TOKEN", cloudToken)
	t.Setenv("SLIPWAY_STACK_ENV", "leaky=CLOUD_TOKEN")
	t.Setenv("SLIPWAY_HOOK_SANDBOX", "bwrap")
	out := t.TempDir()
	t.Setenv(terraform.EnvSandboxBinds, out) // the probes' reports; terraform itself runs in bubblewrap
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn })
	// The payload key in a worker file: the env's own, or one the test writes as an operator would.
	keyFile := e.KeyFile
	if keyFile == "" {
		keyFile = filepath.Join(e.StateDir, "codec.keys")
		require.NoError(t, os.WriteFile(keyFile, []byte(os.Getenv("SLIPWAY_CODEC_KEY")+"\n"), 0o600))
	}
	keyBytes, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(keyBytes)))

	token := fmt.Sprintf("2%06d", time.Now().UnixNano()%1000000)
	drain := drainProbe(keyFile, e.StateDir, token)
	files := probeStack("leaky", out, drain)
	for p, b := range probeStack("quiet", out, drain) {
		files[p] = b
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "stacks that probe their confinement", files)

	e.MustCLI(0, "create", "conf/b", "-f", writeFile(t, "stack: quiet\nparameters:\n  region: eu\n"), "--wait")
	e.MustCLI(0, "deploy", "conf/b", "--wait")
	e.MustCLI(0, "create", "conf/a", "-f", writeFile(t, "stack: leaky\nparameters:\n  region: \"$(id -un)`id`\"\n"), "--wait")
	e.MustCLI(0, "deploy", "conf/a", "--wait")

	// terraform: the worker's variables never reach a local-exec, nor through its parent.
	leaky, quiet := readOut(t, out, "leaky.env"), readOut(t, out, "quiet.env")
	for _, env := range []string{leaky, quiet, readOut(t, out, "leaky.parent-env"), readOut(t, out, "quiet.parent-env")} {
		for _, secret := range []string{argoToken, pgPassword, "postgres@", strings.TrimSpace(string(keyBytes))} {
			assert.NotContains(t, env, secret)
		}
		assert.NotContains(t, env, "SLIPWAY_", "no slipway setting reaches terraform")
	}
	assert.Contains(t, leaky, "CLOUD_TOKEN="+cloudToken, "the variable SLIPWAY_STACK_ENV allows stack leaky reaches it")
	assert.NotContains(t, quiet, cloudToken, "and not another stack")
	roleA := terraform.RoleName(terraform.Workspace{Tenant: "conf", Name: "a"})
	assert.Contains(t, leaky, "PG_CONN_STR=postgres://"+roleA+":", "terraform connects as the instance's own role")

	// PostgreSQL: that role reads its own state and nothing else.
	assert.Equal(t, "1\n", readOut(t, out, "leaky.own-state"))
	assert.Contains(t, readOut(t, out, "leaky.other-state"), "permission denied for schema slipway_conf_b")
	assert.Contains(t, readOut(t, out, "leaky.store"), "permission denied for table slipway_secrets")
	assert.Contains(t, readOut(t, out, "leaky.roles"), "permission denied for table slipway_terraform_roles")

	// The drain hook runs in bwrap: nothing of the worker, parameters as data, no survivor.
	e.MustCLI(0, "archive", "conf/a", "--wait")
	drained := step(t, e.Status("conf/a"), contract.DrainHook)
	t.Log(drained.Output)
	assert.Contains(t, drained.Output, "child-up", "the hook's setsid child ran (the attack was performed)")
	assert.Eventually(t, func() bool { return !hostProcessWith("sleep\x00" + token) }, 10*time.Second, 50*time.Millisecond,
		"the setsid child died with its hook")
	for _, secret := range []string{argoToken, pgPassword, strings.TrimSpace(string(keyBytes))} {
		assert.NotContains(t, drained.Output, secret)
	}
	assert.Contains(t, drained.Output, "key-file: cat: "+keyFile+": No such file or directory")
	assert.Contains(t, drained.Output, "state-dir: ls: cannot access '"+e.StateDir+"': No such file or directory")
	assert.Contains(t, drained.Output, "uid: 65534")
	assert.Contains(t, drained.Output, "region: $(id -un)`id`", "the parameter arrives unexpanded")
	assert.Contains(t, drained.Output, "cloud: "+cloudToken, "the stack's allowed variable reaches its hook")
	assert.Regexp(t, `processes: [1-6]\n`, drained.Output, "the hook sees only its own few processes")

	// Deprovision drops the role; the other instance keeps its own.
	e.MustCLI(0, "deprovision", "conf/a", "--yes", "--wait")
	assert.Equal(t, "0", pg.Query(t, "tfstate", "SELECT count(*) FROM pg_roles WHERE rolname = '"+roleA+"'"))
	roleB := terraform.RoleName(terraform.Workspace{Tenant: "conf", Name: "b"})
	assert.Equal(t, "1", pg.Query(t, "tfstate", "SELECT count(*) FROM pg_roles WHERE rolname = '"+roleB+"'"))
}

// With SLIPWAY_TERRAFORM_SANDBOX=bwrap, terraform itself runs in bubblewrap: a local-exec that
// reads the worker's environment through /proc and its key file finds neither. The provisioner
// fails on purpose so that what it saw comes back in the step's error.
func TestSandboxedTerraformCannotReadTheWorker(t *testing.T) {
	requireWorkingBwrap(t)
	const argoToken = "argotoken-sandbox-value"
	t.Setenv("SLIPWAY_ARGOCD_TOKEN", argoToken)
	t.Setenv(terraform.EnvSandbox, "bwrap")
	e := testsuite.NewEnv(t)
	keyFile := filepath.Join(e.StateDir, "codec.keys")
	require.NoError(t, os.WriteFile(keyFile, []byte("k1:filekeyvalue-sandbox\n"), 0o600))
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack whose terraform reads the worker", map[string][]byte{
		"stacks/sbx/schema.yaml": []byte("description: terraform that reads the worker\nparameters:\n  - name: greeting\n    type: string\n    required: true\n"),
		"stacks/sbx/terraform/main.tf.tmpl": []byte(fmt.Sprintf(`resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
      echo "worker-environ: $(tr -c '[:print:]' ' ' < /proc/%d/environ 2>&1)" >&2
      echo "key-file: $(cat %s 2>&1)" >&2
      exit 3
    EOT
  }
}
`, os.Getpid(), keyFile)),
		"stacks/sbx/manifests/app.yaml.tmpl": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: {{ .Namespace }}\n"),
	})
	e.MustCLI(0, "create", "sbx/web", "-f", writeFile(t, "stack: sbx\nparameters:\n  greeting: hi\n"), "--wait")
	e.MustCLI(1, "deploy", "sbx/web", "--wait")
	st := e.Status("sbx/web")
	require.NotNil(t, st.Failure)
	saw := strings.Join(strings.Fields(st.Failure.Error), " ") // terraform wraps its lines
	t.Log(saw)
	assert.Contains(t, saw, fmt.Sprintf("cannot open /proc/%d/environ: No such file", os.Getpid()))
	assert.Contains(t, saw, "key-file: cat: "+keyFile+": No such file or directory")
	assert.NotContains(t, saw, argoToken)
	assert.NotContains(t, saw, "filekeyvalue-sandbox")
}
