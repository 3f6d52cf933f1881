package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// Bad input gets a clear error naming the field, exit code 2, and changes nothing.
func TestBadInputIsRefusedWithExitTwoAndNoStateChange(t *testing.T) {
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	good := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")

	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"bad tenant", []string{"create", "Acme/web", "-f", good}, `tenant "Acme"`},
		{"bad ref shape", []string{"create", "acme", "-f", good}, "TENANT/NAME"},
		{"no file", []string{"create", "input/web"}, "-f/--file"},
		{"unknown stack", []string{"create", "input/web", "-f", writeFile(t, "stack: nope\nparameters: {greeting: hi}\n")}, "stack"},
		{"unknown parameter", []string{"create", "input/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hi\n  colour: red\n")}, "parameters.colour"},
		{"wrong type", []string{"create", "input/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hi\n  replicas: two\n")}, "parameters.replicas"},
		{"missing required", []string{"create", "input/web", "-f", writeFile(t, "stack: example\nparameters:\n  replicas: 2\n")}, "parameters.greeting"},
		{"unknown top-level key", []string{"create", "input/web", "-f", writeFile(t, "stack: example\nparams: {}\n")}, "params"},
		{"archive never created", []string{"archive", "input/ghost"}, "input/ghost does not exist"},
		{"status never created", []string{"status", "input/ghost"}, "input/ghost does not exist"},
		{"unknown flag", []string{"deploy", "input/web", "--force"}, "--force"},
		{"bad list state", []string{"list", "--state", "Running"}, "--state"},
		{"unknown gate kind in the file", []string{"create", "input/web", "-f", writeFile(t, "stack: example\nparameters: {greeting: hi}\nschedulingGates: [\"dns:acme/db\"]\n")}, `schedulingGates[0]: gate "dns:acme/db": unknown gate kind "dns"`},
		{"unknown gate kind", []string{"gate", "add", "input/web", "dns:acme/db"}, `unknown gate kind "dns"; the built-in kinds are: instance`},
		{"negative gate timeout", []string{"gate", "add", "input/web", "network", "--timeout", "-1s"}, "--timeout"},
		{"cancel with nothing gated", []string{"cancel", "input/ghost"}, "input/ghost does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.CLI(tc.args...)
			require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.stderr)
		})
	}
	require.Empty(t, testsuite.Git(t, repo, "ls-tree", "main", "instances/"), "no bad request reached the repo")
	require.Equal(t, 2, e.CLI("status", "input/web").Code, "no instance was created")

	// A changed `initial` field after the first deploy is refused and changes nothing.
	e.MustCLI(0, "create", "input/web", "-f", good, "--wait")
	e.MustCLI(0, "deploy", "input/web", "--wait")
	moved := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  region: us-east\n")
	r := e.MustCLI(2, "deploy", "input/web", "-f", moved, "--wait")
	require.Contains(t, r.Stderr, "parameters.region")
	require.Contains(t, r.Stderr, "initial")
	r = e.MustCLI(2, "plan", "input/web", "-f", moved)
	require.Contains(t, r.Stderr, "parameters.region", "a dry run of bad input is bad input too")
	st := e.Status("input/web")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, 1, testsuite.Merges(t, repo, "instances/input/web"))
	require.Len(t, st.History, 1, "the refused deploy is not an operation")

	// Deprovision needs explicit confirmation; a failed-state decision needs a failure.
	r = e.MustCLI(2, "deprovision", "input/web")
	require.Contains(t, r.Stderr, "--yes")
	r = e.MustCLI(2, "resolve", "input/web", "--reason", "x")
	require.Contains(t, r.Stderr, "only allowed in a <Step>Failed state")
	r = e.MustCLI(2, "create", "input/web", "-f", good)
	require.Contains(t, r.Stderr, "provision is not allowed in state Deployed")
	require.Equal(t, lifecycle.Deployed, e.Status("input/web").State)
}
