package activities

import (
	"context"
	"slices"
	"strings"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
)

// stackSchemas answers ValidateInput.Stacks: the stacks on main (only name, when given) and
// their schema.yaml, read as the validate step reads them; a name with no stack gives none.
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
	releases, err := a.releaseVersions(ctx, name)
	if err != nil {
		return contract.ValidateOutput{}, err
	}
	var out contract.ValidateOutput
	for n, schema := range byName {
		out.StackSchemas = append(out.StackSchemas, contract.StackSchema{Name: n, SchemaYAML: schema, Releases: releases[n]})
	}
	slices.SortFunc(out.StackSchemas, func(x, y contract.StackSchema) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// releaseVersions are the versions cut of each stack (of name alone, if set), oldest first, read from
// the releases files on main in one read; a releases file that does not parse lists none.
func (a *Activities) releaseVersions(ctx context.Context, name string) (map[string][]string, error) {
	dir := strings.TrimSuffix(config.ReleasesDir(""), "/")
	if name != "" {
		dir = config.ReleasesDir(name)
	}
	files, err := a.Forge.ReadDir(ctx, "", dir)
	if err != nil {
		return nil, classify(err)
	}
	out := map[string][]string{}
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
		for _, rel := range r.Releases {
			out[stack] = append(out[stack], rel.Version)
		}
	}
	return out, nil
}
