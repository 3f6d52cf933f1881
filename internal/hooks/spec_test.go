package hooks

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpecProblems(t *testing.T) {
	exec := Spec{Name: Drain, Kind: KindExec, Exec: "hooks/drain.sh", Deadline: 5 * time.Minute}
	http := Spec{Name: PostDeploy, Kind: KindHTTP, URL: "http://127.0.0.1:8080/ready/{{ .Tenant }}?port={{ .Parameters.port }}", Deadline: 2 * time.Minute}
	with := func(s Spec, f func(*Spec)) Spec { f(&s); return s }
	tests := []struct {
		name  string
		spec  Spec
		field string
		want  string
	}{
		{"exec", exec, "", ""},
		{"http", http, "", ""},
		{"host from an output", with(http, func(s *Spec) { s.URL = "{{ .Outputs.url }}/ready" }), "http", "the URL's scheme, host and port must be written out"},
		{"host from a parameter", with(http, func(s *Spec) { s.URL = "https://{{ .Parameters.region }}.hooks.example.com/flush" }), "http",
			"the URL's scheme, host and port must be written out in the stack"},
		{"port from a parameter", with(http, func(s *Spec) { s.URL = "http://127.0.0.1:{{ .Parameters.port }}/ready" }), "http",
			"the URL's scheme, host and port must be written out"},
		{"host without a path", with(http, func(s *Spec) { s.URL = "https://hooks.example.com{{ .Tenant }}" }), "http",
			"the URL's scheme, host and port must be written out"},
		{"value on an if path into the host", with(http, func(s *Spec) { s.URL = "https://{{ if .Tenant }}x/{{ end }}{{ .Name }}" }), "http",
			"the URL's scheme, host and port must be written out"},
		{"host chosen by a parameter", with(http, func(s *Spec) { s.URL = "https://{{ if .Parameters.x }}a{{ else }}b{{ end }}.example/" }), "http",
			"must name its host before any {{ }}"},
		{"24h", with(exec, func(s *Spec) { s.Deadline = 24 * time.Hour }), "", ""},
		{"unknown hook", with(exec, func(s *Spec) { s.Name = "predrain" }), "", "unknown hook; allowed: drain, post-deploy"},
		{"unknown kind", with(exec, func(s *Spec) { s.Kind = "grpc" }), "kind", `must be exec or http, not "grpc"`},
		{"zero deadline", with(exec, func(s *Spec) { s.Deadline = 0 }), "deadline", "must be more than 0"},
		{"negative deadline", with(exec, func(s *Spec) { s.Deadline = -time.Second }), "deadline", "must be more than 0"},
		{"long deadline", with(exec, func(s *Spec) { s.Deadline = 25 * time.Hour }), "deadline", "must be at most 24h, got 25h0m0s"},
		{"no script", with(exec, func(s *Spec) { s.Exec = "" }), "exec", "must not be empty"},
		{"absolute", with(exec, func(s *Spec) { s.Exec = "/hooks/drain.sh" }), "exec", "must be a clean relative path under hooks/"},
		{"dot dot", with(exec, func(s *Spec) { s.Exec = "hooks/../drain.sh" }), "exec", "must be a clean relative path under hooks/"},
		{"outside hooks", with(exec, func(s *Spec) { s.Exec = "terraform/drain.sh" }), "exec", "must be a clean relative path under hooks/"},
		{"the dir itself", with(exec, func(s *Spec) { s.Exec = "hooks/" }), "exec", "must be a clean relative path under hooks/"},
		{"template", with(exec, func(s *Spec) { s.Exec = "hooks/drain.sh.tmpl" }), "exec", "without .tmpl"},
		{"url on exec", with(exec, func(s *Spec) { s.URL = "http://x" }), "http", "must not be set on an exec hook"},
		{"exec on http", with(http, func(s *Spec) { s.Exec = "hooks/x.sh" }), "exec", "must not be set on an http hook"},
		{"no url", with(http, func(s *Spec) { s.URL = " " }), "http", "must not be empty"},
		{"bad template", with(http, func(s *Spec) { s.URL = "http://x/{{ .Tenant " }), "http", "unclosed action"},
		{"funcs are not config's", with(http, func(s *Spec) { s.URL = "http://x/{{ quote .Tenant }}" }), "http", `function "quote" not defined`},
		{"not http", with(http, func(s *Spec) { s.URL = "ftp://x/{{ .Tenant }}" }), "http", `"ftp://x/{{ .Tenant }}" must start with http:// or https://`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			var ie *InvalidSpecError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tt.spec.Name, ie.Hook)
			assert.Equal(t, tt.field, ie.Field)
			assert.Contains(t, ie.Reason, tt.want)
			assert.Len(t, tt.spec.Problems(), 1)
		})
	}
}

func TestSpecProblemsListsEveryField(t *testing.T) {
	p := Spec{Name: Drain, Kind: KindExec, Exec: "../x", URL: "http://x"}.Problems()
	require.Len(t, p, 3)
	assert.Equal(t, []string{"http", "exec", "deadline"}, []string{p[0].Field, p[1].Field, p[2].Field})
	assert.Equal(t, "drain hook: deadline: must be more than 0", p[2].Error())
}

func TestSpecJSON(t *testing.T) {
	b, err := json.Marshal(Spec{Name: Drain, Kind: KindExec, Exec: "hooks/drain.sh", Deadline: time.Second})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"drain","kind":"exec","exec":"hooks/drain.sh","deadline":1000000000}`, string(b))
}

func TestRender(t *testing.T) {
	d := URLData{Tenant: "acme", Name: "web", Parameters: map[string]any{"port": 8080}, Outputs: map[string]any{"host": "h"}}
	got, err := Render("http://h:8080/ready/{{ .Tenant }}/{{ .Name }}?q={{ urlquery \"a b\" }}&port={{ .Parameters.port }}", d)
	require.NoError(t, err)
	assert.Equal(t, "http://h:8080/ready/acme/web?q=a+b&port=8080", got)

	// The case 4 attack: a parameter only ever changes its own path segment or query value.
	d.Parameters = map[string]any{"region": "x:y@127.0.0.1:9/admin/flush?a=1#f", "up": ".."}
	got, err = Render("https://hooks.example.com/{{ .Parameters.region }}/ready?r={{ .Parameters.region }}#{{ .Parameters.region }}", d)
	require.NoError(t, err)
	assert.Equal(t, "https://hooks.example.com/x:y@127.0.0.1:9%2Fadmin%2Fflush%3Fa=1%23f/ready?r=x%3Ay%40127.0.0.1%3A9%2Fadmin%2Fflush%3Fa%3D1%23f#x:y@127.0.0.1:9%2Fadmin%2Fflush%3Fa=1%23f", got)
	_, err = Render("https://hooks.example.com/a/{{ .Parameters.up }}/admin", d)
	assert.ErrorContains(t, err, `".." cannot be a URL path segment`)

	_, err = Render("http://x/{{ .Parameters.nope }}", d)
	assert.ErrorContains(t, err, `map has no entry for key "nope"`)
	_, err = Render("http://x/{{ .Tenant ", d)
	assert.ErrorContains(t, err, "unclosed action")
}
