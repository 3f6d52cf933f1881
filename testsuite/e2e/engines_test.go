package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// timeTF runs on the real hashicorp/time: a generation change replaces time_sleep (an apply that
// takes seconds), and time_static shows whether anything re-created it.
const timeTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_sleep" "wait" {
  create_duration = "2s"
  triggers        = { generation = "{{ .Params.generation }}" }
}
resource "time_static" "born" {}
`

const timeSchema = `engine: %s
engineVersion: %q
parameters:
  - {name: generation, type: int, default: 1}
`

// tfState is the part of a local state file this test reads.
type tfState struct {
	Version   string `json:"terraform_version"`
	Resources []struct {
		Type      string
		Instances []struct {
			Attributes map[string]any
		}
	}
}

// attr is a resource's attribute in the state; "" when the resource is not there.
func (s tfState) attr(typ, name string) string {
	for _, r := range s.Resources {
		if r.Type == typ && len(r.Instances) == 1 {
			v, _ := r.Instances[0].Attributes[name].(string)
			return v
		}
	}
	return ""
}

// The lifecycle on the real provider, once with each engine: one path, not every test twice.
// Each stack names its engine; the state shows which binary wrote it.
func TestLifecycleOnBothEngines(t *testing.T) {
	// The worker's terraform gets it: it is one of terraform's own settings.
	useTimeMirror(t)
	e := testsuite.NewEnv(t)
	runner, ok := e.Activities.Terraform.(*terraform.Runner)
	require.True(t, ok, "the env runs the real runner")
	have := runner.Engines()
	require.NotEmpty(t, have)
	tf, err := have.Pick(terraform.EngineTerraform, "")
	require.NoError(t, err)
	tofu, err := have.Pick(terraform.EngineOpenTofu, "~> 1.10")
	require.NoError(t, err, "build it with scripts/tools.sh tofu (engines found in %s: %v)", localdirs.Tools(), have.Names())

	for _, tc := range []struct {
		engine, constraint string
		want               terraform.Engine
	}{
		{config.EngineTerraform, ">= 1.5", tf},
		{config.EngineOpenTofu, "~> 1.10", tofu},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			stack, name := "time-"+tc.engine, "t-"+tc.engine
			ref := contract.Ref{Tenant: "eng", Name: name}
			dir := "instances/eng/" + name
			testsuite.PushFiles(t, e.GitOpsRepo, "add "+stack, map[string][]byte{
				"stacks/" + stack + "/schema.yaml":            fmt.Appendf(nil, timeSchema, tc.engine, tc.constraint),
				"stacks/" + stack + "/terraform/main.tf.tmpl": fmt.Appendf(nil, timeTF, tfmirror.TimeVersion),
			})
			state := func() tfState {
				t.Helper()
				data, err := os.ReadFile(runner.StatePath(terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name}))
				require.NoError(t, err)
				var s tfState
				require.NoError(t, json.Unmarshal(data, &s))
				return s
			}
			v1 := writeFile(t, "stack: "+stack+"\nparameters:\n  generation: 1\n")
			v2 := writeFile(t, "stack: "+stack+"\nparameters:\n  generation: 2\n")
			ctx := "eng/" + name

			e.MustCLI(0, "create", ctx, "-f", v1, "--wait")
			require.Equal(t, tc.engine+" "+tc.constraint+"\n", testsuite.Git(t, e.GitOpsRepo, "show", "main:"+dir+"/"+config.EngineFile)+"\n",
				"the merged revision records the engine that applies it")

			start := time.Now()
			e.MustCLI(0, "deploy", ctx, "--wait")
			t.Logf("%s: first deploy (2s time_sleep) took %v", tc.want, time.Since(start).Round(time.Millisecond))
			require.Equal(t, lifecycle.Deployed, e.Status(ctx).State)
			s := state()
			require.Equal(t, tc.want.Version.String(), s.Version, "%s wrote the state", tc.want)
			born, slept := s.attr("time_static", "rfc3339"), s.attr("time_sleep", "id")
			require.NotEmpty(t, born)
			require.NotEmpty(t, slept)

			out := e.MustCLI(0, "plan", ctx, "-f", v2)
			require.Contains(t, out.Stdout, "1 to add, 0 to change, 1 to destroy", "a new generation replaces time_sleep")

			start = time.Now()
			e.MustCLI(0, "deploy", ctx, "-f", v2, "--wait")
			t.Logf("%s: update deploy (time_sleep replaced) took %v", tc.want, time.Since(start).Round(time.Millisecond))
			s = state()
			require.Equal(t, tc.want.Version.String(), s.Version)
			require.Equal(t, born, s.attr("time_static", "rfc3339"), "time_static was not re-created")
			require.NotEqual(t, slept, s.attr("time_sleep", "id"), "time_sleep was replaced")

			out = e.MustCLI(0, "plan", ctx, "--json")
			var plan contract.OperationResult
			require.NoError(t, json.Unmarshal([]byte(out.Stdout), &plan))
			require.True(t, plan.Plan.NoChanges, "%+v", plan.Plan)

			e.MustCLI(0, "destroy", ctx, "--wait")
			require.Equal(t, lifecycle.Destroyed, e.Status(ctx).State)
			require.Empty(t, e.Resources(ref))
			e.MustCLI(0, "deprovision", ctx, "--yes", "--wait")
			require.Equal(t, lifecycle.Deprovisioned, e.Status(ctx).State)
		})
	}

	// Issue 37's OpenTofu case: an instance pinned to 1.0.0 of an opentofu stack is upgraded to
	// 1.1.0 (which replaces time_sleep) by a release rollout; tofu applies it and the pin moves.
	t.Run("opentofu release upgrade", func(t *testing.T) {
		const stack, ctx = "time-released", "eng/released"
		ws := terraform.Workspace{Tenant: "eng", Name: "released"}
		tf := fmt.Sprintf(timeTF, tfmirror.TimeVersion)
		push := func(msg, tf string) {
			testsuite.PushFiles(t, e.GitOpsRepo, msg, map[string][]byte{
				"stacks/" + stack + "/schema.yaml":            fmt.Appendf(nil, timeSchema, config.EngineOpenTofu, "~> 1.10"),
				"stacks/" + stack + "/terraform/main.tf.tmpl": []byte(tf),
			})
		}
		state := func() tfState {
			t.Helper()
			data, err := os.ReadFile(runner.StatePath(ws))
			require.NoError(t, err)
			var s tfState
			require.NoError(t, json.Unmarshal(data, &s))
			return s
		}
		push("add "+stack, tf)
		e.MustCLI(0, "stack", "release", stack, "1.0.0", "--notes", "first")
		push(stack+" 1.1", strings.Replace(tf, `generation = "{{ .Params.generation }}"`, `generation = "{{ .Params.generation }}", release = "1.1"`, 1))
		e.MustCLI(0, "stack", "release", stack, "1.1.0", "--notes", "a release trigger replaces time_sleep")

		e.MustCLI(0, "create", ctx, "-f", writeFile(t, "stack: "+stack+"@1.0.0\n"), "--wait")
		e.MustCLI(0, "deploy", ctx, "--wait")
		before := state()
		require.Equal(t, tofu.Version.String(), before.Version, "tofu wrote the state")

		start := time.Now()
		out := e.MustCLI(0, "rollout", "start", "--stack", stack, "--to", "1.1.0", "--id", "tofu-up", "--wait")
		t.Logf("rollout to 1.1.0 on %s took %v", tofu, time.Since(start).Round(time.Millisecond))
		require.Contains(t, out.Stdout, "Completed")
		require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/"+ctx+"/instance.yaml"), "stack: "+stack+"@1.1.0", "the pin moved")
		after := state()
		require.Equal(t, tofu.Version.String(), after.Version, "tofu applied the upgrade")
		require.NotEqual(t, before.attr("time_sleep", "id"), after.attr("time_sleep", "id"), "1.1.0's trigger replaced time_sleep")
		require.Equal(t, before.attr("time_static", "rfc3339"), after.attr("time_static", "rfc3339"), "nothing else was re-created")
	})
}

// A deployed instance whose stack moves from terraform to OpenTofu: the next deploy renders the
// new engine into the instance directory, the worker inits again with tofu, and tofu takes over
// terraform's state (hashicorp/time included) without re-creating anything.
func TestStackMovesToOpenTofu(t *testing.T) {
	useTimeMirror(t)
	e := testsuite.NewEnv(t)
	runner, ok := e.Activities.Terraform.(*terraform.Runner)
	require.True(t, ok)
	tofu, err := runner.Engines().Pick(terraform.EngineOpenTofu, "")
	require.NoError(t, err, "build it with scripts/tools.sh tofu")
	ref := contract.Ref{Tenant: "eng", Name: "moving"}
	schema := func(engine string) []byte { return fmt.Appendf(nil, timeSchema, engine, ">= 1.5") }
	testsuite.PushFiles(t, e.GitOpsRepo, "add the moving stack", map[string][]byte{
		"stacks/moving/schema.yaml":            schema(config.EngineTerraform),
		"stacks/moving/terraform/main.tf.tmpl": fmt.Appendf(nil, timeTF, tfmirror.TimeVersion),
	})
	state := func() tfState {
		t.Helper()
		data, err := os.ReadFile(runner.StatePath(terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name}))
		require.NoError(t, err)
		var s tfState
		require.NoError(t, json.Unmarshal(data, &s))
		return s
	}
	v1 := writeFile(t, "stack: moving\nparameters:\n  generation: 1\n")
	e.MustCLI(0, "create", "eng/moving", "-f", v1, "--wait")
	e.MustCLI(0, "deploy", "eng/moving", "--wait")
	before := state()
	require.NotEqual(t, tofu.Version.String(), before.Version, "terraform wrote the state first")

	testsuite.PushFiles(t, e.GitOpsRepo, "move the stack to OpenTofu", map[string][]byte{"stacks/moving/schema.yaml": schema(config.EngineOpenTofu)})
	out := e.MustCLI(0, "plan", "eng/moving", "-f", v1)
	require.Contains(t, out.Stdout, "+opentofu >= 1.5", "the plan shows the engine change in the instance directory")
	e.MustCLI(0, "deploy", "eng/moving", "-f", v1, "--wait")
	require.Equal(t, lifecycle.Deployed, e.Status("eng/moving").State)
	require.Equal(t, "opentofu >= 1.5", testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/eng/moving/"+config.EngineFile))
	after := state()
	require.Equal(t, tofu.Version.String(), after.Version, "tofu wrote the state")
	require.Equal(t, before.attr("time_static", "rfc3339"), after.attr("time_static", "rfc3339"), "nothing was re-created")
	require.Equal(t, before.attr("time_sleep", "id"), after.attr("time_sleep", "id"))

	// The stack now asks for a version no worker has: an update is refused before anything changes.
	testsuite.PushFiles(t, e.GitOpsRepo, "ask for OpenTofu 9", map[string][]byte{"stacks/moving/schema.yaml": fmt.Appendf(nil, timeSchema, config.EngineOpenTofu, ">= 9")})
	merges := testsuite.Merges(t, e.GitOpsRepo, "instances/eng/moving")
	r := e.MustCLI(2, "deploy", "eng/moving", "-f", writeFile(t, "stack: moving\nparameters:\n  generation: 2\n"), "--wait")
	require.Contains(t, r.Stderr, "schema.engineVersion")
	require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/eng/moving"), "nothing merged")
	require.Equal(t, lifecycle.Deployed, e.Status("eng/moving").State)
	require.Equal(t, after.attr("time_sleep", "id"), state().attr("time_sleep", "id"), "nothing applied")
}

// A stack whose engine or version the workers lack is refused at validation with exit 2, naming
// the stack's field and what the worker has; nothing reaches the repo.
func TestEngineNoWorkerHasIsRefused(t *testing.T) {
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "add stacks on engines no worker has", map[string][]byte{
		"stacks/future/schema.yaml":         fmt.Appendf(nil, timeSchema, config.EngineOpenTofu, ">= 9"),
		"stacks/future/terraform/main.tf":   []byte(`resource "terraform_data" "x" {}` + "\n"),
		"stacks/pulumi/schema.yaml":         []byte("engine: pulumi\n"),
		"stacks/pulumi/terraform/main.tf":   []byte(`resource "terraform_data" "x" {}` + "\n"),
		"stacks/oldtf/schema.yaml":          fmt.Appendf(nil, timeSchema, config.EngineTerraform, "< 1.0"),
		"stacks/oldtf/terraform/main.tf":    []byte(`resource "terraform_data" "x" {}` + "\n"),
		"stacks/badrange/schema.yaml":       []byte("engineVersion: \"~> one\"\n"),
		"stacks/badrange/terraform/main.tf": []byte(`resource "terraform_data" "x" {}` + "\n"),
	})
	for _, tc := range []struct{ stack, field, msg string }{
		{"future", "schema.engineVersion", `">= 9": no worker of this pool has opentofu matching it (this worker has: `},
		{"oldtf", "schema.engineVersion", `"< 1.0": no worker of this pool has terraform matching it`},
		{"pulumi", "schema.engine", `unknown engine "pulumi"`},
		{"badrange", "schema.engineVersion", `"~> one" is not a version constraint`},
	} {
		t.Run(tc.stack, func(t *testing.T) {
			file := writeFile(t, "stack: "+tc.stack+"\n")
			r := e.CLI("create", "eng/"+tc.stack, "-f", file, "--wait")
			require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
			t.Logf("refused: %s", strings.TrimSpace(r.Stderr))
			require.Contains(t, r.Stderr, tc.field)
			require.Contains(t, r.Stderr, tc.msg)
			require.Equal(t, 2, e.CLI("status", "eng/"+tc.stack).Code, "no instance was created")
		})
	}
	require.Empty(t, strings.TrimSpace(testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/")), "no refused request reached the repo")
}
