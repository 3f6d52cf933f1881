package packaging

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ns = "slipway"

func TestChartLintsClean(t *testing.T) {
	for name, args := range ValuesFiles {
		out, err := RunHelm(t, append([]string{"lint", ChartDir(), "--strict"}, args...)...)
		require.NoError(t, err, "helm lint with the %s values:\n%s", name, out)
		require.Contains(t, out, "0 chart(s) failed")
		require.NotContains(t, out, "[WARNING]")
		require.NotContains(t, out, "[ERROR]")
	}
}

// A bad value is refused by values.schema.json (or the templates) before anything is rendered,
// naming the field; a secret value put in the values is refused too: secrets come from Secrets.
func TestChartRefusesBadValues(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"workers.replicas=-1"}, "/workers/replicas"},
		{[]string{"workers.replicas=three"}, "/workers/replicas"},
		{[]string{"workers.gracePeriodSeconds=5m"}, "/workers/gracePeriodSeconds"},
		// Longer than a budgeted terraform step leaves it to stop (the worker refuses it too).
		{[]string{"workers.terraformStopGraceSeconds=61"}, "/workers/terraformStopGraceSeconds"},
		{[]string{"workers.goMemLimit=2Gi"}, "/workers/goMemLimit"},
		{[]string{"workers.terraformSandbox=none"}, "/workers/terraformSandbox"},
		{[]string{"workers.telemetryPort=80"}, "/workers/telemetryPort"},
		{[]string{"temporal.address=temporal-frontend"}, "/temporal/address"},
		{[]string{"forge.kind=bitbucket"}, "/forge/kind"},
		{[]string{"deployer.kind=flux"}, "/deployer/kind"},
		{[]string{"keys.codecKey="}, "/keys/codecKey"},
		{[]string{"store.existingSecret=Not_A_Name"}, "/store/existingSecret"},
		// The attack: secret values where only Secret names belong.
		{[]string{"forge.token=ghp_leaked"}, "/forge"},
		{[]string{"keys.codec=k1:c2VjcmV0"}, "/keys"},
		{[]string{"store.tfConn=postgres://u:pw@db/x"}, "/store"},
		{[]string{"deployer.argocd.token=leaked"}, "/deployer/argocd"},
		{[]string{"webhook.githubSecret=leaked"}, "/webhook"},
		// Credentials for stacks: never the worker's own variables, never a value, always a mapping.
		{[]string{"workers.credentials.existingSecret=m", "workers.credentials.env[0].name=SLIPWAY_CODEC_KEY",
			"workers.credentials.env[0].existingSecret=s", "workers.credentials.env[0].key=k"}, "/workers/credentials/env/0/name"},
		{[]string{"workers.credentials.existingSecret=m", "workers.credentials.env[0].name=PGPASSWORD",
			"workers.credentials.env[0].existingSecret=s", "workers.credentials.env[0].key=k"}, "/workers/credentials/env/0/name"},
		{[]string{"workers.credentials.existingSecret=m", "workers.credentials.env[0].name=CLOUD_TOKEN",
			"workers.credentials.env[0].value=leaked"}, "/workers/credentials/env/0"},
		{[]string{"workers.credentials.existingSecret=Not_A_Name"}, "/workers/credentials/existingSecret"},
		{[]string{"workers.credentials.fileSecrets[0]=../etc"}, "/workers/credentials/fileSecrets/0"},
		{[]string{"workers.credentials.env[0].name=CLOUD_TOKEN", "workers.credentials.env[0].existingSecret=s",
			"workers.credentials.env[0].key=k"}, "workers.credentials.existingSecret"},
		{[]string{"workers.providerMirror.url=http://mirror.example.com/"}, "/workers/providerMirror/url"},
		{[]string{"workers.providerMirror.url=https://mirror.example.com/",
			"workers.providerMirror.volume.persistentVolumeClaim.claimName=providers"}, "/workers/providerMirror"},
		{[]string{"wokers.replicas=3"}, "wokers"},
		{[]string{"server.enabled=true", "oidc.issuer=https://id.example.com"}, "server.tlsSecret"},
		{[]string{"server.enabled=true", "server.tlsSecret=tls"}, "oidc.issuer"},
	} {
		t.Run(strings.Join(c.set, ","), func(t *testing.T) {
			args := Credential
			for _, s := range c.set {
				args = append(args, "--set", s)
			}
			out, err := Render(t, ns, args...)
			require.Error(t, err, "rendered with %v:\n%s", c.set, out)
			assert.Contains(t, err.Error(), c.want, "the error does not name the field")
			assert.Nil(t, out)
		})
	}
}

// The rendered chart holds the contract: worker count, probes, grace, telemetry, PDB, non-root.
func TestChartRendersTheProductionTopology(t *testing.T) {
	for _, c := range []struct {
		name           string
		args           []string
		replicas       int
		grace, tfGrace int
		servers        []string
	}{
		{"default", ValuesFiles["default"], 3, 300, 30, []string{"webhook", "codec-server"}},
		{"production", ValuesFiles["production"], 5, 600, 60, []string{"webhook", "codec-server", "server"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			manifest, err := Render(t, ns, c.args...)
			require.NoError(t, err)
			objs, err := Parse(manifest)
			require.NoError(t, err)
			byName := map[string]Object{}
			for _, o := range objs {
				byName[o.Kind()+"/"+o.Name()] = o
			}
			w := byName["Deployment/slipway-worker"]
			require.NotNil(t, w, "no worker Deployment in %v", keys(byName))
			assert.EqualValues(t, c.replicas, w.Get("spec", "replicas"))
			pod := Object(w.Get("spec", "template", "spec").(map[string]any))
			assert.EqualValues(t, c.grace+c.tfGrace*3/2+15, pod.Get("terminationGracePeriodSeconds"),
				"terminationGracePeriodSeconds = grace + 1.5 × terraform stop grace (the worker's longest wait) + 15")
			ctr := Object(pod.Get("containers", 0).(map[string]any))
			env := envOf(t, ctr)
			assert.Equal(t, fmt.Sprintf("%ds", c.grace), env["SLIPWAY_WORKER_GRACE"])
			assert.Equal(t, fmt.Sprintf("%ds", c.tfGrace), env["SLIPWAY_TERRAFORM_STOP_GRACE"])
			assert.Equal(t, "0.0.0.0:9090", env["SLIPWAY_TELEMETRY_ADDR"])
			assert.Equal(t, "1843MiB", env["GOMEMLIMIT"], "the Go runtime's soft limit under the 2Gi memory limit")
			assert.EqualValues(t, 9090, ctr.Get("ports", 0, "containerPort"))
			assert.Equal(t, "/healthz", ctr.Get("livenessProbe", "httpGet", "path"))
			assert.Equal(t, "/readyz", ctr.Get("readinessProbe", "httpGet", "path"))
			assert.Equal(t, "telemetry", ctr.Get("readinessProbe", "httpGet", "port"))
			assert.Equal(t, true, pod.Get("securityContext", "runAsNonRoot"))
			assert.Equal(t, true, ctr.Get("securityContext", "readOnlyRootFilesystem"))
			// terraform in bubblewrap, and what bubblewrap needs of the pod.
			assert.Equal(t, "bwrap", env["SLIPWAY_TERRAFORM_SANDBOX"])
			assert.Equal(t, false, pod.Get("hostUsers"))
			assert.Equal(t, "Unconfined", pod.Get("securityContext", "seccompProfile", "type"))
			assert.Equal(t, "Unmasked", ctr.Get("securityContext", "procMount"))
			assert.Equal(t, "Unconfined", ctr.Get("securityContext", "appArmorProfile", "type"))
			assert.NotNil(t, ctr.Get("resources", "requests"))
			assert.Equal(t, "/var/lib/slipway", env["SLIPWAY_STATE_DIR"])
			assert.NotNil(t, pod.Get("volumes", 0, "emptyDir"), "the state dir is an emptyDir (a cache)")
			assert.Equal(t, "true", w.Get("spec", "template", "metadata", "annotations", "prometheus.io/scrape"))
			pdb := byName["PodDisruptionBudget/slipway-worker"]
			require.NotNil(t, pdb)
			assert.Equal(t, w.Get("spec", "selector", "matchLabels"), pdb.Get("spec", "selector", "matchLabels"))

			for _, s := range c.servers {
				d := byName["Deployment/slipway-"+s]
				require.NotNil(t, d, "no %s Deployment", s)
				svc := byName["Service/slipway-"+s]
				require.NotNil(t, svc, "no %s Service", s)
				ctr := Object(d.Get("spec", "template", "spec", "containers", 0).(map[string]any))
				args := fmt.Sprint(ctr.Get("command"))
				assert.True(t, strings.HasPrefix(args, "[/usr/bin/tini -- "), "%s runs under tini: %s", s, args)
				port := ctr.Get("ports", 0, "containerPort")
				assert.Contains(t, args, fmt.Sprintf("0.0.0.0:%v", port), "%s listens on its container port", s)
				assert.Equal(t, ctr.Get("ports", 0, "name"), ctr.Get("readinessProbe", "httpGet", "port"), "%s's probe dials its listener", s)
				assert.Equal(t, "/readyz", ctr.Get("readinessProbe", "httpGet", "path"))
				assert.Equal(t, ctr.Get("ports", 0, "name"), svc.Get("spec", "ports", 0, "targetPort"))
				assert.Equal(t, d.Get("spec", "selector", "matchLabels"), svc.Get("spec", "selector"))
			}
			if c.name == "default" {
				assert.Nil(t, byName["Deployment/slipway-server"], "slipway server needs OIDC and TLS: off by default")
			}
			// No secret value is ever rendered into a Deployment: every credential is a secretKeyRef.
			for _, o := range objs {
				if o.Kind() != "Deployment" {
					continue
				}
				for _, ctr := range o.Get("spec", "template", "spec", "containers").([]any) {
					for _, e := range Object(ctr.(map[string]any)).Get("env").([]any) {
						e := e.(map[string]any)
						n := e["name"].(string)
						if secretEnv(n) {
							assert.NotNil(t, Object(e).Get("valueFrom", "secretKeyRef"), "%s in %s is not from a Secret", n, o.Name())
						}
					}
				}
			}
		})
	}
}

// Stack credentials: the mapping from a Secret's key and its file sources from Secrets, all
// mounted read-only outside every path the worker's own variables name (the worker would refuse
// such a source), and its variable sources from Secrets; none of it by default.
func TestChartGivesWorkersStackCredentials(t *testing.T) {
	off, err := Render(t, ns, Credential...)
	require.NoError(t, err)
	assert.NotContains(t, string(off), "SLIPWAY_CREDENTIALS_FILE")
	assert.NotContains(t, string(off), "/etc/slipway/credentials")

	manifest, err := Render(t, ns, ValuesFiles["production"]...)
	require.NoError(t, err)
	objs, err := Parse(manifest)
	require.NoError(t, err)
	var w Object
	for _, o := range objs {
		if o.Kind()+"/"+o.Name() == "Deployment/slipway-worker" {
			w = o
		}
	}
	require.NotNil(t, w)
	pod := Object(w.Get("spec", "template", "spec").(map[string]any))
	ctr := Object(pod.Get("containers", 0).(map[string]any))
	env := envOf(t, ctr)
	assert.Equal(t, "/etc/slipway/credentials/credentials.yaml", env["SLIPWAY_CREDENTIALS_FILE"])
	for _, e := range ctr.Get("env").([]any) {
		if e.(map[string]any)["name"] == "STACKS_CLOUD_TOKEN" {
			assert.Equal(t, map[string]any{"name": "cloud-credentials", "key": "token"}, Object(e.(map[string]any)).Get("valueFrom", "secretKeyRef"))
		}
	}
	assert.Contains(t, env, "STACKS_CLOUD_TOKEN")

	mounts := map[string]Object{}
	for _, m := range ctr.Get("volumeMounts").([]any) {
		mounts[m.(map[string]any)["mountPath"].(string)] = Object(m.(map[string]any))
	}
	volumes := map[string]Object{}
	for _, v := range pod.Get("volumes").([]any) {
		volumes[v.(map[string]any)["name"].(string)] = Object(v.(map[string]any))
	}
	for path, secret := range map[string]string{
		"/etc/slipway/credentials":                       "slipway-stack-credentials",
		"/etc/slipway/stack-credentials/dns-credentials": "dns-credentials",
	} {
		m := mounts[path]
		require.NotNil(t, m, "nothing mounted at %s: %v", path, keys(mounts))
		assert.Equal(t, true, m.Get("readOnly"), "%s is not read-only", path)
		v := volumes[str(m.Get("name"))]
		require.NotNil(t, v)
		assert.Equal(t, secret, v.Get("secret", "secretName"))
	}
	assert.Equal(t, []any{map[string]any{"key": "credentials.yaml", "path": "credentials.yaml"}},
		volumes[str(mounts["/etc/slipway/credentials"].Get("name"))].Get("secret", "items"), "only the mapping's key")

	// The file sources lie outside every path the worker's own settings name.
	for name, v := range env {
		if !strings.HasPrefix(name, "SLIPWAY_") && !strings.HasPrefix(name, "TEMPORAL_") && !strings.HasPrefix(name, "PG") {
			continue
		}
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); strings.HasPrefix(p, "/") {
				assert.False(t, strings.HasPrefix("/etc/slipway/stack-credentials/dns-credentials/", strings.TrimSuffix(p, "/")+"/"),
					"the file sources are inside %s=%s: the worker refuses them", name, v)
			}
		}
	}
}

// ServiceMonitor is off by default (its CRD may be absent) and renders for each component when on.
func TestChartServiceMonitorToggle(t *testing.T) {
	off, err := Render(t, ns, Credential...)
	require.NoError(t, err)
	assert.NotContains(t, string(off), "kind: ServiceMonitor")
	on, err := Render(t, ns, append(Credential, "--set", "metrics.serviceMonitor.enabled=true")...)
	require.NoError(t, err)
	objs, err := Parse(on)
	require.NoError(t, err)
	var monitors []string
	for _, o := range objs {
		if o.Kind() == "ServiceMonitor" {
			monitors = append(monitors, o.Name())
			assert.Equal(t, "/metrics", o.Get("spec", "endpoints", 0, "path"))
		}
	}
	assert.ElementsMatch(t, []string{"slipway-worker", "slipway-webhook", "slipway-codec-server"}, monitors)
}

// secretEnv: a variable holding a credential, never a literal in a manifest.
func secretEnv(name string) bool {
	for _, s := range []string{"_TOKEN", "_SECRET", "_CONN", "CODEC_KEY", "ATTEST_KEY", "_PASSWORD"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

func envOf(t *testing.T, ctr Object) map[string]string {
	t.Helper()
	env := map[string]string{}
	list, _ := ctr.Get("env").([]any)
	for _, e := range list {
		m := e.(map[string]any)
		v, _ := m["value"].(string)
		if _, ok := env[m["name"].(string)]; ok {
			t.Errorf("%s is set twice", m["name"])
		}
		env[m["name"].(string)] = v
	}
	return env
}

func keys[V any](m map[string]V) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}
