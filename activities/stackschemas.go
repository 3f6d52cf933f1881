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
	var out contract.ValidateOutput
	for n, schema := range byName {
		out.StackSchemas = append(out.StackSchemas, contract.StackSchema{Name: n, SchemaYAML: schema})
	}
	slices.SortFunc(out.StackSchemas, func(x, y contract.StackSchema) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}
