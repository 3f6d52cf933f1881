package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/hooks"
)

const hooksSchema = `hooks:
  drain:
    exec: hooks/drain.sh
    deadline: 5m
  post-deploy:
    http: "http://127.0.0.1:8080/ready/{{ .Tenant }}/{{ .Name }}?port={{ .Parameters.port }}"
    deadline: 2m
`

func TestParseSchemaHooks(t *testing.T) {
	s, err := ParseSchema([]byte(hooksSchema))
	require.NoError(t, err)
	drain := hooks.Spec{Name: hooks.Drain, Kind: hooks.KindExec, Exec: "hooks/drain.sh", Deadline: 5 * time.Minute}
	postDeploy := hooks.Spec{Name: hooks.PostDeploy, Kind: hooks.KindHTTP,
		URL: "http://127.0.0.1:8080/ready/{{ .Tenant }}/{{ .Name }}?port={{ .Parameters.port }}", Deadline: 2 * time.Minute}
	assert.Equal(t, []hooks.Spec{drain, postDeploy}, s.Hooks)

	got, ok := s.Hook(hooks.PostDeploy)
	assert.True(t, ok)
	assert.Equal(t, postDeploy, got)
	_, ok = (&Schema{}).Hook(hooks.Drain)
	assert.False(t, ok)

	none, err := ParseSchema([]byte("hooks:\n"))
	require.NoError(t, err)
	assert.Empty(t, none.Hooks)
}

func TestParseSchemaHookErrors(t *testing.T) {
	// Each case is the body of the drain hook (or all of hooks: when it starts with "!").
	tests := []struct {
		name string
		in   string
		want []FieldError
	}{
		{"unknown hook", "!  predrain: {exec: hooks/x.sh, deadline: 1m}\n",
			[]FieldError{{Field: "schema.hooks.predrain", Message: "unknown hook; allowed: drain, post-deploy"}}},
		{"hooks not a mapping", "!  - drain\n", []FieldError{{Field: "schema.hooks", Message: "must be a mapping of hook name (drain, post-deploy) to hook, got a list"}}},
		{"hook twice", "!  drain: {exec: hooks/a.sh, deadline: 1m}\n  drain: {exec: hooks/b.sh, deadline: 1m}\n",
			[]FieldError{{Field: "schema.hooks.drain", Message: "is set twice (lines 2 and 3)"}}},
		{"hook not a mapping", "!  drain: hooks/drain.sh\n", []FieldError{{Field: "schema.hooks.drain", Message: `must be a mapping with keys exec or http, and deadline, got string "hooks/drain.sh"`}}},
		{"neither", "{deadline: 1m}", []FieldError{{Field: "schema.hooks.drain", Message: "must set exactly one of exec (a script under hooks/) or http"}}},
		{"both", "{exec: hooks/drain.sh, http: 'http://x', deadline: 1m}", []FieldError{{Field: "schema.hooks.drain", Message: "sets both exec and http"}}},
		{"no deadline", "{exec: hooks/drain.sh}",
			[]FieldError{{Field: "schema.hooks.drain.deadline", Message: "is required: a hook without a deadline could hold the operation forever"}}},
		{"deadline not a duration", "{exec: hooks/drain.sh, deadline: 5 minutes}",
			[]FieldError{{Field: "schema.hooks.drain.deadline", Message: `"5 minutes" is not a duration like 90s, 5m or 1h30m`}}},
		{"deadline a number", "{exec: hooks/drain.sh, deadline: 300}",
			[]FieldError{{Field: "schema.hooks.drain.deadline", Message: "must be a duration like 90s, 5m or 1h30m, got int 300"}}},
		{"deadline zero", "{exec: hooks/drain.sh, deadline: 0s}", []FieldError{{Field: "schema.hooks.drain.deadline", Message: "must be more than 0"}}},
		{"deadline negative", "{exec: hooks/drain.sh, deadline: -1m}", []FieldError{{Field: "schema.hooks.drain.deadline", Message: "must be more than 0"}}},
		{"deadline too long", "{exec: hooks/drain.sh, deadline: 25h}", []FieldError{{Field: "schema.hooks.drain.deadline", Message: "must be at most 24h, got 25h0m0s"}}},
		{"exec absolute", "{exec: /hooks/drain.sh, deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.exec", Message: "must be a clean relative path under hooks/"}}},
		{"exec dot dot", "{exec: hooks/../terraform/x.sh, deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.exec", Message: "must be a clean relative path under hooks/"}}},
		{"exec outside hooks", "{exec: drain.sh, deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.exec", Message: "must be a clean relative path under hooks/"}}},
		{"exec template", "{exec: hooks/drain.sh.tmpl, deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.exec", Message: "without .tmpl"}}},
		{"exec not a string", "{exec: [a], deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.exec", Message: "must be a string, got a list"}}},
		{"http bad template", "{http: 'http://x/{{ .Tenant ', deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.http", Message: "unclosed action"}}},
		{"http unknown function", "{http: 'http://x/{{ nope .Tenant }}', deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.http", Message: `function "nope" not defined`}}},
		{"http not http", "{http: 'ftp://x/', deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.http", Message: "must start with http:// or https://"}}},
		{"http empty", "{http: '', deadline: 1m}", []FieldError{{Field: "schema.hooks.drain.http", Message: "must not be empty"}}},
		{"http host from a parameter", "{http: 'https://{{ .Parameters.region }}.hooks.example.com/flush', deadline: 1m}",
			[]FieldError{{Field: "schema.hooks.drain.http", Message: "the URL's scheme, host and port must be written out in the stack, ending in / (or ? or #) before the first {{ }}: a template value there could send the request anywhere; values may go into the path and the query (schema.yaml line 2)"}}},
		{"unknown key", "{exec: hooks/drain.sh, deadline: 1m, timeout: 10s}",
			[]FieldError{{Field: "schema.hooks.drain.timeout", Message: "unknown field (line 2); allowed: exec, http, deadline"}}},
		{"every field at once", "{exec: ../x, deadline: 0s, retries: 2}", []FieldError{
			{Field: "schema.hooks.drain.retries", Message: "unknown field"},
			{Field: "schema.hooks.drain.exec", Message: "must be a clean relative path"},
			{Field: "schema.hooks.drain.deadline", Message: "must be more than 0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "hooks:\n  drain: " + tt.in + "\n"
			if tt.in[0] == '!' {
				doc = "hooks:\n" + tt.in[1:]
			}
			s, err := ParseSchema([]byte(doc))
			assert.Nil(t, s)
			var se *StackError
			require.ErrorAs(t, err, &se)
			require.Len(t, se.Errors, len(tt.want), "errors: %v", se.Errors)
			for i, w := range tt.want {
				assert.Equal(t, w.Field, se.Errors[i].Field)
				assert.Contains(t, se.Errors[i].Message, w.Message)
			}
		})
	}
}

func TestParseSchemaAllowsHooks(t *testing.T) {
	_, err := ParseSchema([]byte("hookz: {}\n"))
	assert.ErrorContains(t, err, "allowed: description, parameters, secrets")
	assert.ErrorContains(t, err, "hooks")
}

func TestLoadStackHookScripts(t *testing.T) {
	schema := testSchema + hooksSchema
	script := "#!/bin/sh\necho 0\n"

	_, err := LoadStack("demo", map[string][]byte{SchemaFile: []byte(schema)})
	var se *StackError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, []FieldError{{Field: "schema.hooks.drain.exec", Message: "hooks/drain.sh is not in stacks/demo/"}}, se.Errors)

	_, err = LoadStack("demo", map[string][]byte{SchemaFile: []byte(schema), "hooks/drain.sh.tmpl": []byte("echo {{ .Name }}")})
	require.NoError(t, err, "a template of the script renders to its path")

	st, err := LoadStack("demo", map[string][]byte{SchemaFile: []byte(schema), "hooks/drain.sh": []byte(script), "hooks/lib/common.sh": nil})
	require.NoError(t, err)
	assert.Equal(t, []string{"hooks/drain.sh", "hooks/lib/common.sh"}, sortedKeys(st.Files))

	out, err := Render(contract.Ref{Tenant: "acme", Name: "web"}, "acme-web", st, &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 1}})
	require.NoError(t, err)
	assert.Equal(t, script, string(out["hooks/drain.sh"]), "the script is rendered into the instance directory")
	assert.Contains(t, out, "hooks/lib/common.sh")
}
