package terraform

import (
	"regexp"
	"strings"
)

// Workspace names one instance; each gets its own working directory and state.
type Workspace struct{ Tenant, Name string }

func (w Workspace) String() string { return w.Tenant + "/" + w.Name }

// labelRE keeps names safe as path segments and (after '-'→'_') as PostgreSQL identifiers.
var labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// maxIdentifier is PostgreSQL's identifier limit; longer schema names would be silently truncated.
const maxIdentifier = 63

func (w Workspace) validate() error {
	for _, f := range []struct{ field, v string }{{"workspace tenant", w.Tenant}, {"workspace name", w.Name}} {
		if f.v == "" {
			return &InvalidInputError{Field: f.field, Value: f.v, Reason: "must not be empty"}
		}
		if len(f.v) > maxIdentifier || !labelRE.MatchString(f.v) {
			return &InvalidInputError{Field: f.field, Value: f.v,
				Reason: "must be 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit"}
		}
	}
	if s := SchemaName(w); len(s) > maxIdentifier {
		return &InvalidInputError{Field: "workspace", Value: w.String(),
			Reason: "tenant and name together are too long for the PostgreSQL schema name " + s}
	}
	return nil
}

// SchemaName is the pg backend schema of a workspace: slipway_<tenant>_<name> with '-' → '_'.
func SchemaName(w Workspace) string {
	return "slipway_" + strings.ReplaceAll(w.Tenant, "-", "_") + "_" + strings.ReplaceAll(w.Name, "-", "_")
}
