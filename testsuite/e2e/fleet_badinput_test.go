package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
)

// Bad fleet input gets exit 2 and names the flag or field; nothing starts.
func TestFleetBadInputIsRefusedWithExitTwo(t *testing.T) {
	e := testsuite.NewEnv(t)
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "bad/web", "-f", cfg, "--wait")
	e.MustCLI(0, "deploy", "bad/web", "--wait")
	sinks := filepath.Join(t.TempDir(), "sinks.yaml")
	require.NoError(t, os.WriteFile(sinks, []byte("sinks:\n  - name: chat\n    kind: slack\n    url: http://hooks.example.com/T0/B0/x\n"), 0o600))

	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"unknown stack", []string{"rollout", "plan", "--stack", "nope", "--set", "replicas=2"}, "--stack nope: no such stack on main"},
		{"unknown stack on start", []string{"rollout", "start", "--stack", "nope", "--set", "replicas=2"}, "--stack nope"},
		{"batch zero", []string{"rollout", "start", "--stack", "example", "--set", "replicas=2", "--batch", "0"}, `--batch "0"`},
		{"batch over 100%", []string{"rollout", "plan", "--stack", "example", "--set", "replicas=2", "--batch", "150%"}, "--batch"},
		{"nothing to roll", []string{"rollout", "plan", "--stack", "example"}, "--set key=value, --stack-rev REV or --to RELEASE"},
		{"unknown parameter", []string{"rollout", "plan", "--stack", "example", "--set", "colour=red"}, `--set colour: stack example has no parameter "colour"`},
		{"wrong type", []string{"rollout", "plan", "--stack", "example", "--set", "replicas=two"}, "--set replicas: must be an int"},
		{"bad order", []string{"rollout", "plan", "--stack", "example", "--set", "replicas=2", "--order", "random"}, "--order"},
		{"max failures zero", []string{"rollout", "start", "--stack", "example", "--set", "replicas=2", "--max-failures", "0"}, "--max-failures"},
		{"priority out of range", []string{"rollout", "start", "--stack", "example", "--set", "replicas=2", "--priority", "6"}, "--priority 6: out of range: 1 (first) to 5 (last)"},
		{"unknown stack rev", []string{"rollout", "plan", "--stack", "example", "--stack-rev", "0123456789abcdef"}, "--stack-rev 0123456789abcdef"},
		{"no such rollout", []string{"rollout", "resume", "ghost"}, "rollout ghost does not exist"},
		{"schedule below the floor", []string{"drift", "schedule", "--every", "30s"}, "--every 30s: must be at least 5m0s"},
		{"bad remediation", []string{"drift", "check", "--remediate", "destroy"}, "--remediate"},
		{"sink URL not https", []string{"notify", "check", sinks}, `sinks[0].url`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.CLI(tc.args...)
			require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.stderr)
		})
	}
	require.Equal(t, 1, testsuite.Merges(t, e.GitOpsRepo, "instances/bad/web"), "no rollout reached the repo")
}
