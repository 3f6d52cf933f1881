package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
)

// stackSchemas answers ValidateInput.Stacks: the stacks on main (only name, when given) and
// their schema.yaml, read as the validate step reads them, and the stacks only in the stacks
// repository that have releases cut (releasedSchema); a name with no stack gives none.
func (a *Activities) stackSchemas(ctx context.Context, name string) (contract.ValidateOutput, error) {
	dir := "stacks"
	switch {
	case name != "" && !names.IsLabel(name):
		return contract.ValidateOutput{}, nil // no stack has such a name, nor a path above stacks/
	case name != "":
		dir = config.StackDir(name)
	}
	files, err := a.Forge.ReadDir(ctx, "", dir)
	if err != nil {
		return contract.ValidateOutput{}, classify(err)
	}
	byName := map[string]string{}
	for p, data := range files {
		stack, rest, nested := strings.Cut(p, "/")
		if name != "" {
			stack, rest, nested = name, p, true
		}
		if !nested {
			continue // a file beside the stacks
		}
		if rest == config.SchemaFile {
			byName[stack] = string(data)
		} else if _, seen := byName[stack]; !seen {
			byName[stack] = ""
		}
	}
	releases, err := a.releaseFiles(ctx, name)
	if err != nil {
		return contract.ValidateOutput{}, err
	}
	for n, r := range releases {
		if _, onMain := byName[n]; onMain || !slices.ContainsFunc(r.Releases, func(rel contract.StackRelease) bool { return rel.Repo != "" }) {
			continue
		}
		schema, err := a.releasedSchema(ctx, n)
		switch {
		case err != nil && name != "":
			return contract.ValidateOutput{}, err
		case err != nil:
			// One stack's release that does not load (a worker without the stacks repository)
			// does not hide the others; asked for by name, it says why.
			if activity.IsActivity(ctx) {
				activity.GetLogger(ctx).Warn("a stack of the stacks repository is not listed", "stack", n, "error", err)
			}
			continue
		}
		byName[n] = schema
	}
	var out contract.ValidateOutput
	for n, schema := range byName {
		var versions []string
		if r := releases[n]; r != nil {
			for _, rel := range r.Releases {
				versions = append(versions, rel.Version)
			}
		}
		out.StackSchemas = append(out.StackSchemas, contract.StackSchema{Name: n, SchemaYAML: schema, Releases: versions})
	}
	slices.SortFunc(out.StackSchemas, func(x, y contract.StackSchema) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// releasedSchema is the schema.yaml of a stack kept only in the stacks repository: that of its
// default channel's release, else of its last release cut, read as a create pinned to it reads it
// (the releases file sealed, the files checked against the release's tree hash).
func (a *Activities) releasedSchema(ctx context.Context, stack string) (string, error) {
	r, err := a.readReleases(ctx, "", stack)
	if err != nil {
		return "", err
	}
	if len(r.Releases) == 0 {
		return "", invalidConfig(fieldError("stack", fmt.Sprintf("stack %s has no releases", stack)))
	}
	rel := r.Releases[len(r.Releases)-1]
	if d, err := r.Resolve("stack", r.Default); r.Default != "" && err == nil && d.Commit != "" {
		rel = d
	}
	files, err := a.releaseDir(ctx, rel)
	if err != nil {
		return "", err
	}
	return string(files[config.SchemaFile]), nil
}

// releaseFiles are the releases files on main of each stack (of name alone, if set), read in one
// read; a releases file that does not parse is left out (the stack lists no releases).
func (a *Activities) releaseFiles(ctx context.Context, name string) (map[string]*config.Releases, error) {
	dir := strings.TrimSuffix(config.ReleasesDir(""), "/")
	if name != "" {
		dir = config.ReleasesDir(name)
	}
	files, err := a.Forge.ReadDir(ctx, "", dir)
	if err != nil {
		return nil, classify(err)
	}
	out := map[string]*config.Releases{}
	for p, data := range files {
		stack, file, nested := strings.Cut(p, "/")
		if name != "" {
			stack, file, nested = name, p, true
		}
		if !nested || file != config.ReleasesFile || !names.IsLabel(stack) {
			continue
		}
		r, err := config.ParseReleases(stack, data)
		if err != nil {
			continue // the stack still lists; its releases show again once the file is mended
		}
		out[stack] = r
	}
	return out, nil
}
