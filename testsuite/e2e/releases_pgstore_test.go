package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// Stack releases with the store on PostgreSQL, as stateless production workers keep it: two
// releases cut, an instance pinned to 1.0.0 upgraded by a rollout --to 1.1.0 and rolled back; the
// releases file's newest generation is recorded in PostgreSQL, so an earlier sealed file restored
// on main fails the deploy's first step, naming the file, and a retry after slipway's last write is
// restored deploys.
func TestReleasesOnThePostgreSQLStore(t *testing.T) {
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "slipway")
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn }) // the store on it too
	tmplPath := "stacks/example/manifests/app.yaml.tmpl"
	orig, err := os.ReadFile(filepath.Join("..", "..", "examples", "stacks", "example", "manifests", "app.yaml.tmpl"))
	require.NoError(t, err)

	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	old := testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml")
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: 1.1 adds a marker", map[string][]byte{tmplPath: []byte(string(orig) + "  marker: one-one\n")})
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "adds a marker")
	latest := testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml")
	require.Equal(t, "2", strings.TrimSpace(pg.Query(t, "slipway", "SELECT generation FROM slipway_releases_heads WHERE stack = 'example'")),
		"the head of the releases file is kept in PostgreSQL")

	const ref = "pgrel/web"
	rendered := func() string {
		return testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/pgrel/web/manifests/app.yaml")
	}
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	require.NotContains(t, rendered(), "marker")

	e.MustCLI(0, "rollout", "start", "--stack", "example", "--tenant", "pgrel", "--to", "1.1.0", "--id", "pgstore-up", "--wait")
	require.Contains(t, rendered(), "marker: one-one", "the rollout re-pinned and deployed 1.1.0")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/pgrel/web/instance.yaml"), "stack: example@1.1.0")
	e.MustCLI(0, "rollout", "start", "--stack", "example", "--tenant", "pgrel", "--to", "1.0.0", "--allow-downgrade", "--id", "pgstore-down", "--wait")
	require.NotContains(t, rendered(), "marker", "rolled back to 1.0.0's files")

	testsuite.PushFiles(t, e.GitOpsRepo, "releases: as they were", map[string][]byte{"releases/example/releases.yaml": []byte(old)})
	r := e.CLI("deploy", ref, "--wait")
	require.Equal(t, 1, r.Code, "the deploy fails at its first step:\n%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout+r.Stderr, "resolve-revision: invalid instance config: releases/example/releases.yaml: replayed: main holds an earlier releases file slipway sealed (generation 1, older than generation 2")
	testsuite.PushFiles(t, e.GitOpsRepo, "releases: restored", map[string][]byte{"releases/example/releases.yaml": []byte(latest)})
	e.MustCLI(0, "retry", ref, "--reason", "releases file restored", "--wait")
	require.Equal(t, "Deployed", string(e.Status(ref).State))
	require.NotContains(t, rendered(), "marker", "still 1.0.0 after the repair")
}
