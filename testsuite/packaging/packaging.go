// Package packaging checks what slipway ships for production: the Helm chart (linted, rendered
// and dry-run applied to a real kube-apiserver), docker-compose.yml (the same topology as
// testsuite/production) and the image's build context (.dockerignore).
package packaging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

const (
	// HelmVersion is the helm scripts/tools.sh builds; keep the two in step.
	HelmVersion = "v3.22.0"
	// EnvRequire="1" turns a missing helm into a test failure instead of a skip (CI sets it).
	EnvRequire = "SLIPWAY_REQUIRE_HELM"
	// KubeVersion is what helm renders for: the kube-apiserver the tests run.
	KubeVersion = "v1.36.3"
	// fieldManager names the chart tests' dry-run applies.
	fieldManager = "slipway-chart-test"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ChartDir is deploy/helm/slipway.
func ChartDir() string { return filepath.Join(Root(), "deploy", "helm", "slipway") }

// Helm is the cached helm binary; a missing one skips t (naming scripts/tools.sh) unless EnvRequire=1.
func Helm(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(localdirs.Tools(), "helm-"+HelmVersion, "helm")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("helm %s missing at %s: run scripts/tools.sh helm", HelmVersion, bin)
		}
		t.Skipf("helm %s missing at %s: run scripts/tools.sh helm", HelmVersion, bin)
	}
	return bin
}

// RunHelm runs helm with args in an empty HOME, so no user's repositories or plugins play a part.
func RunHelm(t testing.TB, args ...string) (string, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(Helm(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Render is `helm template` of the chart into namespace ns with the given values files and --set flags.
func Render(t testing.TB, ns string, args ...string) ([]byte, error) {
	t.Helper()
	full := append([]string{"template", "slipway", ChartDir(), "--namespace", ns, "--kube-version", KubeVersion}, args...)
	home := t.TempDir()
	cmd := exec.Command(Helm(t), full...)
	cmd.Env = append(os.Environ(), "HOME="+home, "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template: %v: %s", err, stderr.String())
	}
	return out, nil
}

// Object is one rendered manifest document.
type Object map[string]any

// Kind, Name and Namespace read the object's identity.
func (o Object) Kind() string      { s, _ := o["kind"].(string); return s }
func (o Object) Name() string      { return str(o.Get("metadata", "name")) }
func (o Object) Namespace() string { return str(o.Get("metadata", "namespace")) }

// Get walks map keys and list indexes (ints).
func (o Object) Get(path ...any) any {
	var cur any = map[string]any(o)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			cur = l[k]
		}
	}
	return cur
}

func str(v any) string { s, _ := v.(string); return s }

// Parse splits a multi-document manifest into objects, skipping empty documents.
func Parse(manifest []byte) ([]Object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(manifest))
	var objs []Object
	for {
		var o map[string]any // not Object: yaml.v3 would decode nested maps as Object too
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(o) > 0 {
			objs = append(objs, Object(o))
		}
	}
}

// RESTPath is the object's URL on the apiserver; namespaced iff metadata.namespace is set.
func RESTPath(o Object) string {
	apiVersion := str(o["apiVersion"])
	prefix := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		prefix = "/api/" + apiVersion
	}
	if ns := o.Namespace(); ns != "" {
		prefix += "/namespaces/" + ns
	}
	k := strings.ToLower(o.Kind())
	switch {
	case strings.HasSuffix(k, "y"):
		k = k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "ss"):
		k += "es"
	default:
		k += "s"
	}
	return prefix + "/" + k + "/" + o.Name()
}

// DryRunApply server-side applies o with dryRun=All: the apiserver validates and admits it (schema,
// defaults, admission) and stores nothing. It returns the status and the apiserver's answer.
func DryRunApply(ctx context.Context, s *cluster.Stack, o Object) (int, []byte, error) {
	body, err := json.Marshal(o) // JSON is YAML: an apply patch
	if err != nil {
		return 0, nil, err
	}
	return s.Stack.Kube(ctx, http.MethodPatch, RESTPath(o)+"?dryRun=All&force=true&fieldManager="+fieldManager,
		"application/apply-patch+yaml", body)
}

// EnsureNamespace creates namespace ns for real (a dry run cannot create into a missing one).
func EnsureNamespace(ctx context.Context, s *cluster.Stack, ns string) error {
	body := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`)
	status, resp, err := s.Stack.Kube(ctx, http.MethodPatch, "/api/v1/namespaces/"+ns+"?fieldManager="+fieldManager,
		"application/apply-patch+yaml", body)
	if err != nil {
		return err
	}
	if status != http.StatusOK && status != http.StatusCreated {
		return fmt.Errorf("namespace %s: %d %s", ns, status, resp)
	}
	return nil
}

// Credential is the one value the defaults lack: the chart refuses a Temporal connection
// without a credential (Temporal's authorization is on unless temporal.insecureNoAuthorization).
var Credential = []string{"--set", "temporal.auth.enabled=true", "--set", "temporal.auth.tokenURL=https://id.example.com/oauth2/token"}

// ValuesFiles are the installs CheckOnCluster dry-runs: the defaults (and a Temporal credential)
// and a production-like one.
var ValuesFiles = map[string][]string{
	"default":    Credential,
	"production": {"-f", filepath.Join(ChartDir(), "ci", "production-values.yaml")},
}

// CheckOnCluster renders the chart for each of ValuesFiles and dry-run applies every object to s's
// real kube-apiserver, which must accept each one and store none; a Deployment broken after
// rendering must be refused, so the check is one that can fail. The namespaces are created for real.
func CheckOnCluster(t *testing.T, s *cluster.Stack) {
	ctx := context.Background()
	for name, args := range ValuesFiles {
		t.Run(name, func(t *testing.T) {
			ns := "slipway-chart-" + name
			require.NoError(t, EnsureNamespace(ctx, s, ns))
			manifest, err := Render(t, ns, args...)
			require.NoError(t, err)
			objs, err := Parse(manifest)
			require.NoError(t, err)
			require.NotEmpty(t, objs)
			kinds := map[string]int{}
			for _, o := range objs {
				require.Equal(t, ns, o.Namespace(), "%s %s is not in the release namespace", o.Kind(), o.Name())
				status, resp, err := DryRunApply(ctx, s, o)
				require.NoError(t, err)
				require.Containsf(t, []int{http.StatusOK, http.StatusCreated}, status,
					"the apiserver refused %s %s: %s", o.Kind(), o.Name(), resp)
				var back Object
				require.NoError(t, json.Unmarshal(resp, &back))
				require.Equal(t, o.Name(), back.Name(), "the apiserver answered for another object")
				kinds[o.Kind()]++
				// dryRun=All stores nothing: the object is still absent.
				status, _, err = s.Stack.Kube(ctx, http.MethodGet, RESTPath(o), "", nil)
				require.NoError(t, err)
				require.Equal(t, http.StatusNotFound, status, "%s %s was stored by a dry run", o.Kind(), o.Name())
			}
			t.Logf("%s values: the apiserver accepted %d objects %v", name, len(objs), kinds)
			require.GreaterOrEqual(t, kinds["Deployment"], 3, "workers, webhook and codec server")

			// The same check refuses what the apiserver refuses: a selector its pods do not match.
			var broken Object
			for _, o := range objs {
				if o.Kind() == "Deployment" {
					broken = o
					break
				}
			}
			broken.Get("spec", "selector", "matchLabels").(map[string]any)["app.kubernetes.io/component"] = "nothing"
			status, resp, err := DryRunApply(ctx, s, broken)
			require.NoError(t, err)
			require.Equal(t, http.StatusUnprocessableEntity, status, "a Deployment whose selector misses its pods was accepted: %s", resp)
			require.Contains(t, string(resp), "selector")
		})
	}
}
