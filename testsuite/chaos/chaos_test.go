package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// TestMain lets the test binary be its own chaos worker, as the command is.
func TestMain(m *testing.M) {
	if os.Getenv(envRole) == roleWorker {
		os.Exit(workerMain())
	}
	os.Exit(m.Run())
}

// The short chaos run that `make test` does: every kill point, fewer fault and restart
// lifecycles, the conflicts and the secrets grep, with every figure at its target.
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos runs real lifecycles for minutes")
	}
	cfg := defaultConfig()
	cfg.Lifecycles, cfg.Parallel, cfg.RestartLifecycles = 12, 6, 2
	cfg.KillPoints = AllKillPoints("none")
	require.NoError(t, cfg.setPhases("all"))
	require.NoError(t, cfg.validate())
	var out bytes.Buffer
	rep, err := Run(context.Background(), cfg, &out)
	var missing *postgres.MissingError
	if errors.As(err, &missing) && os.Getenv(postgres.EnvRequire) != "1" {
		t.Skip(err.Error())
	}
	require.NoError(t, err, out.String())
	rep.Print(&out)
	t.Log("\n" + out.String())
	if dir := os.Getenv("SLIPWAY_FIGURES_DIR"); dir != "" { // make test prints it
		require.NoError(t, os.WriteFile(filepath.Join(dir, "chaos-short.txt"), out.Bytes(), 0o644))
	}
	require.GreaterOrEqual(t, len(rep.Kills), 20)
	require.Empty(t, rep.OffTarget())
	require.Positive(t, rep.Faults.Faults)
	require.Positive(t, rep.Secrets.Secrets)
}

// The report's judgement can fail: each kind of figure off target is named.
func TestOffTargetNamesEachFigure(t *testing.T) {
	base := Audit{MRs: configChanges, Merges: configChanges, Applies: 2, Destroys: 2, Serial: 4}
	rep := &Report{Baseline: base,
		Kills: []KillResult{{Point: KillPoint{Op: opDeploy, Activity: "TerraformApply", Phase: phaseMid}, Fired: true, Completed: true,
			Audit: Audit{MRs: configChanges + 1, Merges: configChanges, Applies: 3, Destroys: 2, Serial: 5}}},
		Faults:    &FaultFigures{Lifecycles: 2, Converged: 1, Faults: 3},
		Restart:   &RestartFigures{Lifecycles: 2, Completed: 2},
		Conflicts: &ConflictFigures{Requests: 3, Accepted: 1, Rejected: 2, Interleaved: 1},
		Secrets:   &SecretFigures{Secrets: 1, ControlDecoded: 1, Hits: []string{"a secret of t/n in log faults.log"}},
	}
	bad := rep.OffTarget()
	require.Len(t, bad, 4, "%q", bad)
	require.Contains(t, bad[0], "duplicate MRs 1, merges 0, applies/destroys 1, serial jumps 1")
	require.Contains(t, bad[1], "converged 1/2")
	require.Contains(t, bad[2], "interleaved 1")
	require.Contains(t, bad[3], "1 hit(s)")
	rep.Kills[0].Audit = base
	rep.Faults.Converged = 2
	rep.Conflicts.Interleaved = 0
	rep.Secrets.Hits = nil
	require.Empty(t, rep.OffTarget())
}

func TestKillPointsCoverTheLifecycle(t *testing.T) {
	points := AllKillPoints("none")
	require.GreaterOrEqual(t, len(points), 20)
	seen := map[string]bool{}
	ops := map[int]bool{}
	for _, k := range points {
		require.False(t, seen[k.String()], "duplicate point %s", k)
		seen[k.String()] = true
		ops[k.Op] = true
		back, err := parseKillPoint(k.env())
		require.NoError(t, err)
		require.Equal(t, k, back)
	}
	require.Len(t, ops, len(lifecycleOps), "every operation of the lifecycle has kill points")
	require.Greater(t, len(AllKillPoints("argocd")), len(points), "ArgoCD adds mid-deploy points")
	_, err := parseKillPoint("9:TerraformApply:mid")
	require.ErrorContains(t, err, envKill)
	require.Equal(t, 3, opSeq("instance/t/n/deploy-3-abc123/attempt-2"))
	require.Zero(t, opSeq("instance/t/n"))
}
