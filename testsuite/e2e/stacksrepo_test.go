package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/testsuite"
)

// With SLIPWAY_STACKS_REPO a release is cut from the stacks repository, and an instance pinned to
// it renders that repository's files: its stack (edp, the example's files) is not in the GitOps repository at all.
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

	// Unpinned, the stack is looked for in the GitOps repository, and is not there.
	out = e.MustCLI(2, "create", "sr/unpinned", "-f", writeFile(t, "stack: edp\nparameters:\n  greeting: hello\n"))
	require.Contains(t, out.Stdout+out.Stderr, `unknown stack "edp"`)
}
