package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// hostile is a greeting that tries to leave its place in every kind of file.
const hostile = "x\"'`$(id -un)${a}%{b}\n#\\ EOF"

// Every value is escaped for where the file writes it, without a function or with the right one.
func TestRenderEscapesByContext(t *testing.T) {
	tests := []struct {
		name, file, tmpl, want string
	}{
		{"hcl expression", "terraform/a.tf.tmpl", `g = {{ .Params.greeting }}`, `g = "x\"'` + "`" + `$(id -un)$${a}%%{b}\n#\\ EOF"`},
		{"hcl quote", "terraform/a.tf.tmpl", `g = {{ quote .Params.greeting }}`, `g = "x\"'` + "`" + `$(id -un)$${a}%%{b}\n#\\ EOF"`},
		{"hcl number", "terraform/a.tf.tmpl", `n = {{ .Params.replicas }}`, `n = 3`},
		{"hcl inside a string", "terraform/a.tf.tmpl", `g = "hi {{ .Params.greeting }}!"`, `g = "hi x\"'` + "`" + `$(id -un)$${a}%%{b}\n#\\ EOF!"`},
		{"hcl interpolation", "terraform/a.tf.tmpl", `g = "${ {{ .Params.greeting }} }"`, `g = "${ "x\"'` + "`" + `$(id -un)$${a}%%{b}\n#\\ EOF" }"`},
		{"hcl comment", "terraform/a.tf.tmpl", "# {{ .Params.greeting }}\nx = 1", "# x\\\"'`$(id -un)$${a}%%{b}\\n#\\\\ EOF\nx = 1"},
		{"yaml value", "manifests/a.yaml.tmpl", `g: {{ .Params.greeting }}`, `g: "x\"'` + "`" + `$(id -un)${a}%{b}\n#\\ EOF"`},
		{"yaml name stays plain", "manifests/a.yaml.tmpl", `ns: {{ .Namespace }}`, `ns: acme-web`},
		{"yaml in double quotes", "manifests/a.yaml.tmpl", `g: "hi {{ .Params.greeting }}"`, `g: "hi x\"'` + "`" + `$(id -un)${a}%{b}\n#\\ EOF"`},
		{"yaml toJSON", "manifests/a.yaml.tmpl", `g: {{ toJSON .Params.greeting }}`, `g: "x\"'` + "`" + `$(id -un)${a}%{b}\n#\\ EOF"`},
		{"yaml block scalar", "manifests/a.yaml.tmpl", "cfg: |\n  {\"g\": {{ toJSON .Params.greeting }}}\n", "cfg: |\n  {\"g\": \"x\\\"'`$(id -un)${a}%{b}\\n#\\\\ EOF\"}\n"},
		{"json", "manifests/a.json.tmpl", `{"g": {{ .Params.greeting }}, "n": {{ .Params.replicas }}}`, `{"g": "x\"'` + "`" + `$(id -un)${a}%{b}\n#\\ EOF", "n": 3}`},
		{"shell word", "manifests/run.sh.tmpl", `echo {{ .Name }}`, `echo 'web'`},
		{"shell double quotes", "manifests/run.sh.tmpl", `echo "{{ .Name }}"`, `echo "web"`},
		{"local-exec environment", "terraform/a.tf.tmpl", "provisioner \"local-exec\" {\n  environment = { G = {{ .Params.greeting }} }\n  command = \"echo \\\"$G\\\"\"\n}",
			"provisioner \"local-exec\" {\n  environment = { G = \"x\\\"'`$(id -un)$${a}%%{b}\\n#\\\\ EOF\" }\n  command = \"echo \\\"$G\\\"\"\n}"},
		{"module inputs and a resource's version", "terraform/a.tf.tmpl", "module \"m\" {\n  source = \"./m\"\n  greeting = {{ .Params.replicas }}\n}\nresource \"x\" \"y\" { version = {{ .Params.replicas }} }\n",
			"module \"m\" {\n  source = \"./m\"\n  greeting = 3\n}\nresource \"x\" \"y\" { version = 3 }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := testStack(t, map[string]string{tt.file: tt.tmpl})
			out, err := Render(contract.Ref{Tenant: "acme", Name: "web"}, "acme-web", st,
				&Instance{Stack: "demo", Parameters: map[string]any{"greeting": hostile, "size": 1, "replicas": 3}})
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(out[tt.file[:len(tt.file)-len(TemplateSuffix)]]))
		})
	}
}

// The case 3 attack: a hook script that writes a parameter into its text is refused when the
// stack is loaded, naming the file and line and where the value is instead; so is an escaper
// that does not fit where it is used.
func TestLoadStackRefusesValuesWhereTheyDoNotFit(t *testing.T) {
	tests := []struct {
		name, file, tmpl, want string
	}{
		{"parameter in a hook script", "hooks/drain.sh.tmpl", "#!/bin/sh\necho {{ quote .Params.greeting }}\n",
			"line 2: .Params.greeting is a tenant value: a hook script runs on the worker, so no tenant value is written into it: read the parameter from the environment (SLIPWAY_PARAM_<NAME>"},
		{"parameter in a hook condition", "hooks/drain.sh.tmpl", "{{ if eq .Params.greeting \"x\" }}rm -rf /{{ end }}", ".Params.greeting is a tenant value"},
		{"all the data in a hook", "hooks/drain.sh.tmpl", "echo {{ printf \"%v\" . }}", ". passes all of the template's data"},
		{"parameter in a shell script", "terraform/run.sh.tmpl", "echo {{ .Params.greeting }}", "line 1: .Params.greeting is a tenant value: a shell script is code"},
		{"parameter in a local-exec command", "terraform/a.tf.tmpl", "resource \"terraform_data\" \"x\" {\n  provisioner \"local-exec\" {\n    command = \"echo {{ .Params.greeting }}\"\n  }\n}",
			"line 3: .Params.greeting is a tenant value: \"command\" is a command a shell runs"},
		{"parameter in a module source", "terraform/a.tf.tmpl", "module \"m\" {\n  source = \"git::https://example.com/{{ .Params.greeting }}.git\"\n  greeting = {{ .Params.greeting }}\n}\n",
			"line 2: .Params.greeting is a tenant value: a module's \"source\" says which code terraform downloads"},
		{"parameter in a module version", "terraform/a.tf.tmpl", "module \"m\" { version = {{ .Params.greeting }} }", "line 1: .Params.greeting is a tenant value: a module's \"version\""},
		{"parameter in a provider source", "terraform/a.tf.tmpl", "terraform {\n  required_providers {\n    x = {\n      source = \"example/{{ .Params.greeting }}\"\n    }\n  }\n}\n",
			"line 4: .Params.greeting is a tenant value: the terraform block"},
		{"parameter in a backend", "terraform/a.tf.tmpl", "terraform {\n  backend \"local\" {\n    path = \"/tmp/${\"{{ .Params.greeting }}\"}\"\n  }\n}\n", "line 3: .Params.greeting is a tenant value: the terraform block"},
		{"parameter in terraform's JSON", "terraform/main.tf.json.tmpl", "{\"module\": {\"m\": {\"source\": {{ .Params.greeting }}}}}", "line 1: .Params.greeting is a tenant value: a .tf.json file is terraform code"},
		{"parameter in a working_dir", "terraform/a.tf.tmpl", "resource \"terraform_data\" \"x\" {\n  provisioner \"local-exec\" {\n    command = \"ls\"\n    working_dir = {{ .Params.greeting }}\n  }\n}",
			"line 4: .Params.greeting is a tenant value: \"working_dir\" is where a command runs"},
		{"parameter in a heredoc command", "terraform/a.tf.tmpl", "x = 1\ncommand = <<-EOT\n  echo {{ .Params.greeting }}\nEOT\n", "line 3: .Params.greeting is a tenant value: \"command\""},
		{"quote in a shell script", "manifests/run.sh.tmpl", "\n\necho {{ quote .Name }}", "line 3: quote does not escape for a shell word; use sh or nothing"},
		{"toJSON in terraform", "terraform/a.tf.tmpl", "x = {{ toJSON .Params.greeting }}", "line 1: toJSON does not escape for a HCL expression"},
		{"quote inside an HCL string", "terraform/a.tf.tmpl", `x = "{{ quote .Params.greeting }}"`, "quote does not escape for a HCL string"},
		{"value in a heredoc header", "terraform/a.tf.tmpl", "x = <<EOT {{ .Name }}\nEOT\n", "the line that opens a heredoc"},
		{"value in a shell heredoc", "manifests/run.sh.tmpl", "cat <<EOF\n{{ .Name }}\nEOF\n", "inside a shell heredoc; pass it in the environment"},
		{"branches that disagree", "manifests/a.yaml.tmpl", "g: {{ if .Params.debug }}\"{{ end }}{{ .Params.greeting }}", "written in a"},
		{"parameter in an unknown kind", "manifests/notes.txt.tmpl", "{{ .Params.greeting }}", "slipway escapes values only in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadStack("demo", map[string][]byte{SchemaFile: []byte(testSchema), tt.file: []byte(tt.tmpl)})
			var se *StackError
			require.ErrorAs(t, err, &se)
			require.Len(t, se.Errors, 1)
			assert.Equal(t, tt.file, se.Errors[0].Field)
			assert.Contains(t, se.Errors[0].Message, tt.want)
		})
	}
}

// Values that the escaping of their place cannot hold fail the render, naming why.
func TestRenderRefusesValuesAPlaceCannotHold(t *testing.T) {
	tests := []struct{ name, file, tmpl, greeting, want string }{
		{"line break in a heredoc", "terraform/a.tf.tmpl", "x = <<EOT\n{{ .Params.greeting }}\nEOT\n", "a\nEOT\nresource", "line break cannot be written inside a heredoc"},
		{"heredoc's closing word", "terraform/a.tf.tmpl", "x = <<EOT\nE{{ .Params.greeting }}\nEOT\n", "OT", "could end the heredoc EOT"},
		{"unquoted YAML mid-scalar", "manifests/a.yaml.tmpl", "image: repo/app:{{ .Params.greeting }}", "v1 #x", "cannot be written inside an unquoted YAML scalar"},
		{"line break in a YAML block", "manifests/a.yaml.tmpl", "s: |\n  echo {{ .Params.greeting }}\n", "a\nb: c", "cannot be written inside a block scalar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := testStack(t, map[string]string{tt.file: tt.tmpl})
			_, err := Render(contract.Ref{Tenant: "acme", Name: "web"}, "acme-web", st,
				&Instance{Stack: "demo", Parameters: map[string]any{"greeting": tt.greeting, "size": 1}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
