package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
)

// renderStack is a stack whose terraform and manifest write the greeting with no function (the
// file's context escapes it), with the given hook declaration and files.
func renderStack(name, hooksYAML string, files map[string]string) map[string][]byte {
	dir := "stacks/" + name + "/"
	out := map[string][]byte{
		dir + "schema.yaml": []byte(`description: tenant values in every kind of file
parameters:
  - name: greeting
    type: string
    required: true
` + hooksYAML),
		dir + "terraform/main.tf.tmpl": []byte(`resource "terraform_data" "app" {
  input = {{ .Params.greeting }}
}

output "greeting" {
  value = "${terraform_data.app.output}"
}
`),
		dir + "manifests/app.yaml.tmpl": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: {{ .Namespace }}
data:
  greeting: {{ .Params.greeting }}
  quoted: "hello {{ .Params.greeting }}"
`),
	}
	for p, body := range files {
		out[dir+p] = []byte(body)
	}
	return out
}

// greetingFile writes an instance file of stack with this greeting, as YAML double-quoted.
func greetingFile(t *testing.T, stack, greeting string) string {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(greeting)
	return writeFile(t, fmt.Sprintf("stack: %s\nparameters:\n  greeting: \"%s\"\n", stack, q))
}

// The case 3 attack, end to end on the dev server, git and terraform: a greeting made of command
// substitutions, backticks and quotes reaches the drain hook as data in SLIPWAY_PARAM_GREETING,
// through terraform (HCL) and the manifest (YAML) unchanged, and runs nothing, even unquoted in
// the script (no marker file). A stack that templates the parameter into the hook's script is
// refused when it is validated, with exit 2, naming the file, the line and the variable to use.
func TestHookScriptsTakeParametersAsData(t *testing.T) {
	// Unconfined on purpose: this is about the value never becoming code, not the sandbox
	// (confinement_exec_test.go), so a command that ran could leave its marker here.
	t.Setenv("SLIPWAY_HOOK_SANDBOX", "none")
	e := testsuite.NewEnv(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	greeting := `$(touch ` + marker + `)` + "`touch " + marker + "`" + `'"; touch ` + marker + `; "'$(id -un)`
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook that reads its parameter from the environment", renderStack("paramhook",
		"hooks:\n  drain: {exec: hooks/drain.sh, deadline: 1m}\n", map[string]string{"hooks/drain.sh": `#!/bin/sh
printf 'param=%s|\n' "$SLIPWAY_PARAM_GREETING" >&2
printf 'output=%s|\n' "$SLIPWAY_OUTPUT_GREETING" >&2
echo unquoted: $SLIPWAY_PARAM_GREETING >&2
echo 0
`}))
	const ref = "render/hook"
	e.MustCLI(0, "create", ref, "-f", greetingFile(t, "paramhook", greeting), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	e.MustCLI(0, "archive", ref, "--wait")
	out := step(t, e.Status(ref), contract.DrainHook).Output
	t.Logf("drain hook output:\n%s", out)
	assert.Contains(t, out, "param="+greeting+"|", "the hook got the parameter as it was written")
	assert.Contains(t, out, "output="+greeting+"|", "terraform stored it unchanged through the HCL escaping")
	assert.Contains(t, out, "unquoted: $(touch "+marker+")`touch", "even unquoted, the shell expands nothing in it")
	assert.NotContains(t, out, "root", "$(id -un) did not run")
	_, err := os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "no command in the parameter ran")

	// The same parameter templated into the script is refused before anything changes.
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook that templates its parameter", renderStack("templhook",
		"hooks:\n  drain: {exec: hooks/drain.sh, deadline: 1m}\n", map[string]string{"hooks/drain.sh.tmpl": "#!/bin/sh\necho {{ quote .Params.greeting }} >&2\necho 0\n"}))
	bad := e.CLI("create", "render/templ", "-f", greetingFile(t, "templhook", greeting))
	require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
	t.Logf("refused: %s", bad.Stderr)
	assert.Contains(t, bad.Stderr, "hooks/drain.sh.tmpl: line 2: .Params.greeting is a tenant value")
	assert.Contains(t, bad.Stderr, "SLIPWAY_PARAM_<NAME>")
	assert.Equal(t, 2, e.CLI("status", "render/templ").Code, "nothing was created")
	_, err = os.Stat(marker)
	assert.True(t, os.IsNotExist(err))
}

// uriLog records the request URIs a server was sent.
type uriLog struct {
	mu   sync.Mutex
	uris []string
}

func (l *uriLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uris = append(l.uris, r.RequestURI)
}

func (l *uriLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.uris...)
}

// serveOn starts h on a loopback address of its own (127.0.0.x).
func serveOn(t *testing.T, ip string, h http.Handler) *httptest.Server {
	l, err := net.Listen("tcp", ip+":0")
	require.NoError(t, err)
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// The case 4 attack, end to end on the dev server, git and terraform. A URL whose host comes
// from a parameter is refused at validation with exit 2, naming the field and its line. With the
// host written in the stack, the attacker's region (userinfo, host, path and query in one) is
// only an escaped path segment and query value of the request the hook server receives. An
// internal service the operator did not allow (127.0.0.2; SLIPWAY_HOOK_ALLOW_CIDRS allows only
// 127.0.0.1) is refused as the hook dials it, a redirect to it is not followed, and its answer
// appears nowhere: not in the step output, status -o all, or events.
func TestHTTPHooksGoOnlyWhereTheStackSays(t *testing.T) {
	t.Setenv("SLIPWAY_HOOK_ALLOW_CIDRS", "127.0.0.1")
	var adminHits atomic.Int32
	admin := serveOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		adminHits.Add(1)
		_, _ = io.WriteString(w, "FLUSHED admin-token-7f3a")
	}))
	var hookURIs uriLog
	hook := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hookURIs.add(r)
		if strings.HasPrefix(r.URL.Path, "/moved") {
			http.Redirect(w, r, admin.URL+"/admin/flush", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "0")
	}))
	e := testsuite.NewEnv(t)
	region := "x:y@" + strings.TrimPrefix(admin.URL, "http://") + "/admin/flush?"

	// A host from a parameter: refused at validation.
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook host from a parameter", renderStack("hosttmpl",
		"hooks:\n  post-deploy:\n    http: \"https://{{ .Parameters.greeting }}.hooks.example.com/flush\"\n    deadline: 30s\n", nil))
	bad := e.CLI("create", "ssrf/templ", "-f", greetingFile(t, "hosttmpl", region))
	require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
	t.Logf("refused: %s", bad.Stderr)
	assert.Contains(t, bad.Stderr, "schema.hooks.post-deploy.http: the URL's scheme, host and port must be written out in the stack")
	assert.Contains(t, bad.Stderr, "(schema.yaml line 8)")

	// The host from the stack: the parameter stays in its path segment and query value.
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook on the platform's host", renderStack("platformhost",
		"hooks:\n  post-deploy:\n    http: \""+hook.URL+"/ready/{{ .Parameters.greeting }}?region={{ .Parameters.greeting }}\"\n    deadline: 30s\n", nil))
	e.MustCLI(0, "create", "ssrf/ok", "-f", greetingFile(t, "platformhost", region), "--wait")
	e.MustCLI(0, "deploy", "ssrf/ok", "--wait")
	adminAddr := strings.TrimPrefix(admin.URL, "http://")
	require.Equal(t, []string{"/ready/x:y@" + adminAddr + "%2Fadmin%2Fflush%3F?region=x%3Ay%40" + strings.Replace(adminAddr, ":", "%3A", 1) + "%2Fadmin%2Fflush%3F"},
		hookURIs.all(), "the request went to the stack's host, the region escaped in its place")

	// An internal destination the operator did not allow: refused as it dials.
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook on an internal service", renderStack("internalhook",
		"hooks:\n  post-deploy:\n    http: \""+admin.URL+"/admin/flush\"\n    deadline: 30s\n", nil))
	e.MustCLI(0, "create", "ssrf/internal", "-f", greetingFile(t, "internalhook", "hi"), "--wait")
	e.MustCLI(1, "deploy", "ssrf/internal", "--wait")
	st := e.Status("ssrf/internal")
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.PostDeployHook, st.Failure.Step)
	assert.Contains(t, st.Failure.Error, "refused to connect to "+adminAddr+": a loopback address (allow it explicitly with SLIPWAY_HOOK_ALLOW_CIDRS)")

	// A redirect from the allowed host to the internal service: not followed.
	testsuite.PushFiles(t, e.GitOpsRepo, "a hook whose endpoint redirects", renderStack("redirecthook",
		"hooks:\n  post-deploy:\n    http: \""+hook.URL+"/moved\"\n    deadline: 30s\n", nil))
	e.MustCLI(0, "create", "ssrf/redirect", "-f", greetingFile(t, "redirecthook", "hi"), "--wait")
	e.MustCLI(1, "deploy", "ssrf/redirect", "--wait")
	st = e.Status("ssrf/redirect")
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.PostDeployHook, st.Failure.Step)
	assert.Contains(t, st.Failure.Error, "redirects are not followed (the answer pointed to "+admin.URL+")")

	assert.Zero(t, adminHits.Load(), "the internal service was never reached")
	for _, ref := range []string{"ssrf/internal", "ssrf/redirect"} {
		for _, args := range [][]string{{"status", ref, "-o", "all"}, {"events", ref}, {"status", ref, "--json", "-o", "all"}} {
			r := e.CLI(args...)
			assert.NotContains(t, r.Stdout+r.Stderr, "FLUSHED", "slipway %s", strings.Join(args, " "))
			assert.NotContains(t, r.Stdout+r.Stderr, "admin-token", "slipway %s", strings.Join(args, " "))
		}
	}
}
