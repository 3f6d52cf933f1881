package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
)

// The issue 36 case 8 attack, on the dev server and git: a stack that writes a tenant parameter
// into a module's source (the code terraform downloads and runs), a provider's source in
// required_providers, or a local-exec's working_dir is refused when the create validates it,
// with exit 2 naming the file and line; nothing is created and no branch is opened.
func TestAttackModuleSourceFromAParameterIsRefused(t *testing.T) {
	e := testsuite.NewEnv(t)
	for _, tt := range []struct{ stack, tf, want string }{
		{"modsource", "module \"app\" {\n  source = \"git::https://example.com/{{ .Params.greeting }}.git\"\n  greeting = {{ .Params.greeting }}\n}\n",
			"terraform/main.tf.tmpl: line 2: .Params.greeting is a tenant value: a module's \"source\""},
		{"provsource", "terraform {\n  required_providers {\n    x = { source = {{ .Params.greeting }} }\n  }\n}\n",
			"terraform/main.tf.tmpl: line 3: .Params.greeting is a tenant value: the terraform block"},
		{"workdir", "resource \"terraform_data\" \"x\" {\n  provisioner \"local-exec\" {\n    command     = \"ls\"\n    working_dir = {{ .Params.greeting }}\n  }\n}\n",
			"terraform/main.tf.tmpl: line 4: .Params.greeting is a tenant value: \"working_dir\""},
	} {
		stack := renderStack(tt.stack, "", nil)
		stack["stacks/"+tt.stack+"/terraform/main.tf.tmpl"] = []byte(tt.tf)
		testsuite.PushFiles(t, e.GitOpsRepo, "a stack that templates a parameter into "+tt.stack, stack)
		ref := "attack/" + tt.stack
		bad := e.CLI("create", ref, "-f", greetingFile(t, tt.stack, "evil.example/x"))
		require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
		assert.Contains(t, bad.Stderr, tt.want)
		assert.Equal(t, 2, e.CLI("status", ref).Code, "nothing was created")
		assert.Empty(t, testsuite.Branches(t, e.GitOpsRepo, "slipway/attack/"), "no MR was opened")
	}
}
