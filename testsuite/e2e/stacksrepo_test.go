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
// it renders that repository's files, not the GitOps repository's stacks/.
func TestReleaseFromTheStacksRepositoryRenders(t *testing.T) {
	src := filepath.Join("..", "..", "examples", "stacks", "example")
	seed := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		seed["stacks/example/"+filepath.ToSlash(rel)] = b
		return err
	}))
	seed["stacks/example/manifests/app.yaml.tmpl"] = append(seed["stacks/example/manifests/app.yaml.tmpl"], []byte("  marker: stacks-repo\n")...)
	repo := filepath.Join(t.TempDir(), "stacks.git")
	_, err := localgit.Init(repo, seed)
	require.NoError(t, err)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.StacksRepo = repo })

	out := e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "from the stacks repository")
	require.Contains(t, out.Stdout, "of file://"+repo)
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml"), "repo: file://"+repo)
	e.MustCLI(0, "create", "sr/web", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/sr/web/manifests/app.yaml"), "marker: stacks-repo")
}
