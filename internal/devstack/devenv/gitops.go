package devenv

import (
	"fmt"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// SeedGitOps creates the embedded default's GitOps repository at dir: a bare
// git repo whose main holds the `example` stack. An existing repo is reused.
func SeedGitOps(dir string) (*localgit.Forge, error) {
	files, err := examples.StackFiles("example")
	if err != nil {
		return nil, fmt.Errorf("example stack: %w", err)
	}
	seed := map[string][]byte{"README.md": []byte(gitopsReadme)}
	for p, d := range files {
		seed["stacks/example/"+p] = d
	}
	return localgit.Init(dir, seed)
}

const gitopsReadme = `# GitOps repository (slipway embedded default)

- stacks/<stack>/: schema.yaml, terraform/ and manifests/ templates.
- instances/<tenant>/<name>/: rendered by slipway through merge requests
  (branches slipway/<tenant>/<name>/<operation>-<id>, merged --no-ff into main).
`
