package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/testsuite"
)

// With SLIPWAY_STACKS_REPO a release is cut from the stacks repository, and an instance pinned to
// it renders that repository's files: its stack (edp, the example's files) is not in the GitOps
// repository at all. A preview and a rollout --to a later release of it plan, then re-pin and
// deploy, the instance; a --set rollout is checked against, and renders, the release the instance
// runs (--stack-rev, which names main's files, is refused); the server's stack catalog (the
// worker's answer to StackSchemas) lists it.
func TestReleaseFromTheStacksRepositoryRenders(t *testing.T) {
	src := filepath.Join("..", "..", "examples", "stacks", "example")
	seed := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		seed["stacks/edp/"+filepath.ToSlash(rel)] = b
		return err
	}))
	seed["stacks/edp/manifests/app.yaml.tmpl"] = append(seed["stacks/edp/manifests/app.yaml.tmpl"], []byte("  marker: stacks-repo\n")...)
	repo := filepath.Join(t.TempDir(), "stacks.git")
	_, err := localgit.Init(repo, seed)
	require.NoError(t, err)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.StacksRepo = repo })

	out := e.MustCLI(0, "stack", "release", "edp", "1.0.0", "--notes", "from the stacks repository")
	require.Contains(t, out.Stdout, "of file://"+repo)
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/edp/releases.yaml"), "repo: file://"+repo)
	e.MustCLI(0, "create", "sr/web", "-f", writeFile(t, "stack: edp@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/manifests/app.yaml"), "marker: stacks-repo")

	// 1.1.0, cut after a change merged into the stacks repository, rolls out to the instance.
	e.MustCLI(0, "deploy", "sr/web", "--wait")
	app := seed["stacks/edp/manifests/app.yaml.tmpl"]
	testsuite.PushFiles(t, repo, "edp: 1.1.0", map[string][]byte{
		"stacks/edp/manifests/app.yaml.tmpl": append(append([]byte(nil), app[:len(app)-len("stacks-repo\n")]...), []byte("stacks-repo-1.1.0\n")...)})
	e.MustCLI(0, "stack", "release", "edp", "1.1.0", "--notes", "the marker moves")
	out = e.MustCLI(2, "rollout", "plan", "--stack", "edp", "--set", "replicas=two")
	require.Contains(t, out.Stderr, "--set replicas: ")
	require.Contains(t, out.Stderr, "sr/web runs edp@1.0.0")
	out = e.MustCLI(2, "rollout", "plan", "--stack", "edp", "--stack-rev", "abc123")
	require.Contains(t, out.Stderr, "--stack-rev abc123: stack edp has no files on the GitOps repository's main")
	pv := e.MustCLI(0, "stack", "preview", "edp", "--to", "1.1.0", "--id", "p-sr").Stdout
	require.Contains(t, pv, "preview p-sr of stack edp → 1.1.0 (done)")
	e.MustCLI(0, "rollout", "start", "--id", "sr", "--stack", "edp", "--to", "1.1.0", "--wait")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/instance.yaml"), "stack: edp@1.1.0")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/manifests/app.yaml"), "marker: stacks-repo-1.1.0")

	// --set rolls out against the release the instance runs, and its deploy renders that release.
	e.MustCLI(0, "rollout", "start", "--id", "sr-set", "--stack", "edp", "--set", "greeting=howdy", "--wait")
	file := testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/instance.yaml")
	require.Contains(t, file, "stack: edp@1.1.0")
	require.Contains(t, file, "greeting: howdy")
	app11 := testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/manifests/app.yaml")
	require.Contains(t, app11, "marker: stacks-repo-1.1.0")
	require.Contains(t, app11, `greeting: "howdy"`)

	got, err := e.Client.StackSchemas(t.Context(), "")
	require.NoError(t, err)
	i := slices.IndexFunc(got, func(s contract.StackSchema) bool { return s.Name == "edp" })
	require.GreaterOrEqual(t, i, 0, "the catalog lists the stacks repository's stack: %+v", got)
	require.Equal(t, string(seed["stacks/edp/schema.yaml"]), got[i].SchemaYAML)
	require.Equal(t, []string{"1.0.0", "1.1.0"}, got[i].Releases)

	// Unpinned, the stack is looked for in the GitOps repository, and is not there.
	out = e.MustCLI(2, "create", "sr/unpinned", "-f", writeFile(t, "stack: edp\nparameters:\n  greeting: hello\n"))
	require.Contains(t, out.Stdout+out.Stderr, `unknown stack "edp"`)
}
