package apiserver_test

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/config"
)

// described says whether the OpenAPI description has method on a path like the one a portal
// calls: a templated segment of the description matches any segment of the portal's.
func described(t *testing.T, method, raw string) bool {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(apiserver.OpenAPI, &doc))
	p, _, _ := strings.Cut(raw, "?")
	got := strings.Split(p, "/")
	for path, ops := range doc.Paths {
		want := strings.Split(path, "/")
		if _, ok := ops[strings.ToLower(method)]; !ok || len(want) != len(got) {
			continue
		}
		same := true
		for i := range want {
			templated := strings.HasPrefix(want[i], "{") && got[i] != ""
			same = same && (want[i] == got[i] || templated)
		}
		if same {
			return true
		}
	}
	return false
}

// normal is v as JSON decodes it.
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func exampleSchema(t *testing.T) map[string]any {
	t.Helper()
	files, err := examples.StackFiles("example")
	require.NoError(t, err)
	st, err := config.LoadStack("example", files)
	require.NoError(t, err)
	return normal(t, st.Schema.JSONSchema("example", false)).(map[string]any)
}

// The Backstage template parses, calls only routes the OpenAPI description has, points at the
// schema route, and its parameters form is the example stack's JSON Schema as the route answers it.
func TestBackstageTemplateCallsDescribedRoutes(t *testing.T) {
	data, err := os.ReadFile("../../examples/portals/backstage-template.yaml")
	require.NoError(t, err)
	var tpl struct {
		Kind     string
		Metadata struct{ Annotations map[string]string }
		Spec     struct {
			Parameters []map[string]any
			Steps      []struct {
				Action string
				Input  struct{ Method, Path string }
			}
			Output struct{ Links []struct{ URL string } }
		}
	}
	require.NoError(t, yaml.Unmarshal(data, &tpl))
	require.Equal(t, "Template", tpl.Kind)
	require.True(t, described(t, "GET", tpl.Metadata.Annotations["slipway.dev/schema"]))
	require.NotEmpty(t, tpl.Spec.Steps)
	for _, s := range tpl.Spec.Steps {
		require.Equal(t, "http:backstage:request", s.Action)
		p, ok := strings.CutPrefix(s.Input.Path, "/proxy/slipway")
		require.True(t, ok, s.Input.Path)
		require.True(t, described(t, s.Input.Method, p), "%s %s is not in the OpenAPI description", s.Input.Method, p)
	}
	for _, l := range tpl.Spec.Output.Links {
		p, _ := strings.CutPrefix(l.URL, "/proxy/slipway")
		require.True(t, described(t, "GET", p), p)
	}
	want := exampleSchema(t)
	form := normal(t, tpl.Spec.Parameters[1]).(map[string]any)
	require.Equal(t, want["properties"], form["properties"], "the form is GET /v1/stacks/example/schema's")
	require.Equal(t, want["required"], form["required"])
}

// The Port action parses, calls a route the OpenAPI description has, points at the schema route,
// and its inputs are the example stack's JSON Schema beside the tenant and the name.
func TestPortActionCallsDescribedRoutes(t *testing.T) {
	data, err := os.ReadFile("../../examples/portals/port-action.json")
	require.NoError(t, err)
	var act struct {
		Trigger struct {
			UserInputs struct {
				Properties map[string]any
				Required   []string
			} `json:"userInputs"`
		}
		InvocationMethod struct{ URL, Method string } `json:"invocationMethod"`
		Schema           string                       `json:"x-slipway-schema"`
	}
	require.NoError(t, json.Unmarshal(data, &act))
	require.True(t, described(t, "GET", act.Schema))
	u, err := url.Parse(strings.NewReplacer("{{ ", "%7B%7B", " }}", "%7D%7D").Replace(act.InvocationMethod.URL))
	require.NoError(t, err)
	require.True(t, described(t, act.InvocationMethod.Method, u.Path), "%s %s is not in the OpenAPI description", act.InvocationMethod.Method, u.Path)
	want := exampleSchema(t)
	props := normal(t, act.Trigger.UserInputs.Properties).(map[string]any)
	for name, p := range want["properties"].(map[string]any) {
		p := p.(map[string]any)
		delete(p, "x-slipway-initial") // Port keeps only its own keys
		require.Equal(t, p, props[name], name)
	}
	for _, r := range want["required"].([]any) {
		require.Contains(t, act.Trigger.UserInputs.Required, r)
	}
}
