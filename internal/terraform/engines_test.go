package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/stackenv"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// tofuVersion is the OpenTofu release scripts/tools.sh builds.
const tofuVersion = "1.10.10"

// requireTofu returns the real tofu that scripts/tools.sh builds; like requireTerraform, a miss
// skips unless SLIPWAY_REQUIRE_TERRAFORM=1.
func requireTofu(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(localdirs.Tools(), "tofu-v"+tofuVersion, "tofu")
	if _, err := checkExecutable(bin, bin); err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_TERRAFORM") == "1" {
			t.Fatalf("%v (build it with scripts/tools.sh tofu)", err)
		}
		t.Skipf("%v (build it with scripts/tools.sh tofu)", err)
	}
	return bin
}

// enginesDir lays out a tools directory holding the real tofu, plus entries discovery must skip.
func enginesDir(t *testing.T, tofu string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"tofu-v" + tofuVersion, "terraform-provider-time-v0.14.2", ".build-tofu.abc", "tofu-v1.99.0"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.Symlink(tofu, filepath.Join(dir, "tofu-v"+tofuVersion, "tofu")))
	require.NoError(t, os.Symlink(tofu, filepath.Join(dir, "terraform-provider-time-v0.14.2", "terraform-provider-time")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tofu-v1.99.0", "tofu"), []byte("not executable"), 0o644))
	return dir
}

func TestDiscoverEngines(t *testing.T) {
	tf, tofu := requireTerraform(t), requireTofu(t)
	es, err := DiscoverEngines(context.Background(), enginesDir(t, tofu), tf)
	require.NoError(t, err)
	require.Len(t, es, 2, "%v: the provider, a half-built dir and a non-executable file are no engines", es.Names())
	assert.Equal(t, EngineOpenTofu, es[0].Name)
	assert.Equal(t, tofuVersion, es[0].Version.String(), "the binary's own version, not a -dev build")
	assert.Equal(t, EngineTerraform, es[1].Name)

	got, err := es.Pick(EngineOpenTofu, "~> 1.10")
	require.NoError(t, err)
	assert.Equal(t, es[0], got)
	got, err = es.Pick("", "")
	require.NoError(t, err)
	assert.Equal(t, EngineTerraform, got.Name, "no engine named is terraform")

	_, err = es.Pick(EngineOpenTofu, ">= 2")
	var ue *EngineUnavailableError
	require.ErrorAs(t, err, &ue)
	assert.False(t, ue.NoEngine)
	assert.Contains(t, err.Error(), `no opentofu ">= 2" (it has: opentofu 1.10.10, terraform `)
	_, err = Engines{es[1]}.Pick(EngineOpenTofu, "")
	require.ErrorAs(t, err, &ue)
	assert.True(t, ue.NoEngine)

	// A directory named for another version holds what its binary says it is.
	liar := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(liar, "tofu-v1.11.0"), 0o755))
	require.NoError(t, os.Symlink(tofu, filepath.Join(liar, "tofu-v1.11.0", "tofu")))
	es, err = DiscoverEngines(context.Background(), liar, "")
	require.NoError(t, err)
	require.Len(t, es, 1)
	assert.Equal(t, tofuVersion, es[0].Version.String())

	// A binary that cannot say its version stops discovery, naming it: a worker must not start half-equipped.
	broken := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(broken, "terraform-v1.12.0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, "terraform-v1.12.0", "terraform"), []byte("#!/bin/sh\nexit 3\n"), 0o755))
	_, err = DiscoverEngines(context.Background(), broken, "")
	require.ErrorContains(t, err, filepath.Join("terraform-v1.12.0", "terraform"))

	es, err = DiscoverEngines(context.Background(), filepath.Join(t.TempDir(), "absent"), "")
	require.NoError(t, err, "a missing engines dir holds no engines")
	assert.Empty(t, es)
}

// stateVersion is the engine version the workspace's local state was last written by.
func stateVersion(t *testing.T, r *Runner, ws Workspace) string {
	t.Helper()
	data, err := os.ReadFile(r.StatePath(ws))
	require.NoError(t, err)
	var st struct {
		Version string `json:"terraform_version"`
	}
	require.NoError(t, json.Unmarshal(data, &st))
	return st.Version
}

func TestRunnerPicksEngine(t *testing.T) {
	tf, tofu := requireTerraform(t), requireTofu(t)
	es, err := DiscoverEngines(context.Background(), enginesDir(t, tofu), tf)
	require.NoError(t, err)
	r := newRunner(t, WithEngines(es))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web", Engine: "opentofu ~> 1.10"}

	ready(t, r, ws, twoResources("one"))
	assert.True(t, r.Initialized(ws))
	p, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.Equal(t, tofuVersion, stateVersion(t, r, ws), "tofu wrote the state")

	// The stack goes back to the worker's terraform: the working dir inits again with it.
	ws.Engine = ""
	require.NoError(t, r.Prepare(ctx, ws, twoResources("two")))
	assert.False(t, r.Initialized(ws), "a directory tofu initialised is not terraform's")
	require.NoError(t, r.Init(ctx, ws))
	assert.True(t, r.Initialized(ws))
	p, err = r.Plan(ctx, ws, "p2", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.Equal(t, es[1].Version.String(), stateVersion(t, r, ws), "terraform wrote the state")

	// An engine this worker lacks fails the command before terraform runs, saying what it has.
	gone := Workspace{Tenant: "acme", Name: "gone", Engine: "opentofu >= 9"}
	require.NoError(t, r.Prepare(ctx, gone, twoResources("x")))
	err = r.Init(ctx, gone)
	var ue *EngineUnavailableError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), `no opentofu ">= 9" (it has: opentofu 1.10.10`)
	_, statErr := os.Stat(filepath.Join(r.Dir(gone), dataDir))
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "nothing ran")

	bad := Workspace{Tenant: "acme", Name: "bad", Engine: "pulumi"}
	var ie *InvalidInputError
	require.ErrorAs(t, r.Prepare(ctx, bad, twoResources("x")), &ie)
	assert.Equal(t, "workspace engine", ie.Field)
	require.ErrorAs(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": nil, EngineFile: []byte("terraform")}), &ie,
		"a stack cannot write the engine record itself")
}

// A plan carries the exact engine version that made it: another worker applies it with that
// version, and a worker without it refuses rather than apply with another.
func TestSavedPlanPinsEngineVersion(t *testing.T) {
	tf, tofu := requireTerraform(t), requireTofu(t)
	es, err := DiscoverEngines(context.Background(), enginesDir(t, tofu), tf)
	require.NoError(t, err)
	shared := localPlans{dir: t.TempDir()}
	planner := newRunner(t, WithEngines(es), WithPlanStore(shared))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web", Engine: "opentofu >= 1.10"}
	ready(t, planner, ws, twoResources("one"))
	p, err := planner.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	saved, err := shared.LoadPlan(ctx, ws, "p1")
	require.NoError(t, err)
	assert.Equal(t, "opentofu = "+tofuVersion+"\n", string(saved.Files[EngineFile]))

	onlyTerraform := newRunner(t, WithEngines(Engines{es[1]}), WithPlanStore(shared))
	_, err = onlyTerraform.Apply(ctx, Workspace{Tenant: "acme", Name: "web"}, &Plan{File: filepath.Base(p.File), SHA256: p.SHA256})
	var ue *EngineUnavailableError
	require.ErrorAs(t, err, &ue, "a worker without tofu does not apply a tofu plan")
	assert.Equal(t, "= "+tofuVersion, ue.Constraint)

	applier := newRunner(t, WithEngines(es), WithPlanStore(shared))
	already, err := applier.Apply(ctx, Workspace{Tenant: "acme", Name: "web"}, &Plan{File: filepath.Base(p.File), SHA256: p.SHA256})
	require.NoError(t, err)
	assert.False(t, already)
	// The plan names its backend: the planner's local state path, which the applier wrote with tofu.
	assert.Equal(t, tofuVersion, stateVersion(t, planner, ws))
}

// Both engines run the real hashicorp/time from a filesystem mirror; the figures are init cold (an
// empty working dir) and warm (init again), plan and apply, per engine.
func TestEnginesOnRealProvider(t *testing.T) {
	tf, tofu := requireTerraform(t), requireTofu(t)
	es, err := DiscoverEngines(context.Background(), enginesDir(t, tofu), tf)
	require.NoError(t, err)
	mirror := tfmirror.Layout(t, tfmirror.Time())
	env := map[string]string{"TF_CLI_CONFIG_FILE": mirror.ConfigFile, "PATH": os.Getenv("PATH")}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	r := newRunner(t, WithEngines(es), WithStackEnv(stackenv.AllowList{}, lookup))
	files := map[string][]byte{"main.tf": fmt.Appendf(nil, `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = %q }
  }
}
resource "time_sleep" "wait" {
  create_duration = "1s"
}
resource "time_static" "born" {}
`, tfmirror.TimeVersion)}
	ctx := context.Background()
	for _, engine := range []string{"terraform", "opentofu"} {
		ws := Workspace{Tenant: "figures", Name: engine, Engine: engine}
		require.NoError(t, r.Prepare(ctx, ws, files))
		start := time.Now()
		require.NoError(t, r.Init(ctx, ws))
		cold := time.Since(start)
		start = time.Now()
		require.NoError(t, r.Init(ctx, ws))
		warm := time.Since(start)
		start = time.Now()
		p, err := r.Plan(ctx, ws, "p", false)
		require.NoError(t, err)
		plan := time.Since(start)
		require.Equal(t, 2, p.Summary.Add)
		start = time.Now()
		_, err = r.Apply(ctx, ws, p)
		require.NoError(t, err)
		apply := time.Since(start)
		want, err := es.Pick(engine, "")
		require.NoError(t, err)
		require.Equal(t, want.Version.String(), stateVersion(t, r, ws))
		lock, err := os.ReadFile(filepath.Join(r.Dir(ws), depLockFile))
		require.NoError(t, err)
		require.Contains(t, string(lock), "hashicorp/time", "the provider came from the mirror")
		t.Logf("%s: init cold %v, init warm %v, plan %v, apply %v (of which time_sleep 1s)", want,
			cold.Round(time.Millisecond), warm.Round(time.Millisecond), plan.Round(time.Millisecond), apply.Round(time.Millisecond))
	}
}

// In the sandbox the picked engine is what runs: tofu's own directory is bound in read-only.
func TestSandboxedOpenTofu(t *testing.T) {
	bwrap := requireBwrap(t)
	tf, tofu := requireTerraform(t), requireTofu(t)
	es, err := DiscoverEngines(context.Background(), enginesDir(t, tofu), tf)
	require.NoError(t, err)
	r := newRunner(t, WithEngines(es), WithSandbox(bwrap))
	ws := Workspace{Tenant: "acme", Name: "sbx", Engine: "opentofu"}
	ctx := context.Background()
	ready(t, r, ws, twoResources("one"))
	p, err := r.Plan(ctx, ws, "p", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	assert.Equal(t, tofuVersion, stateVersion(t, r, ws))
	_, err = os.Stat(r.wrapperPath())
	require.NoError(t, err, "tofu ran through the sandbox's wrapper")
}
