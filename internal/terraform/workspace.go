package terraform

import (
	"regexp"

	"github.com/slipway-dev/slipway/internal/names"
)

// Workspace names one instance; each gets its own working directory and state.
type Workspace struct {
	Tenant, Name string
	// Schema is the instance's recorded pg backend schema (names.Names.Schema); "" means the
	// name it got before names were recorded.
	Schema string
	// Stack picks the operator's allow-listed variables (stackenv); "" is the one Prepare
	// last recorded for the workspace (an instance's stack never changes).
	Stack string
	// Credentials are the stack's schema.credentials, resolved by the operator's mapping for this
	// tenant and stack; nil is the list Prepare last recorded for the workspace.
	Credentials []string
	// Revision is the GitOps commit the files come from; "" for a proposed config. The lock file
	// of the first init at a revision is recorded under it (lockfile.go).
	Revision string
	// Engine is the stack's engine as its rendered directory records it ("opentofu ~> 1.10");
	// "" is the worker's default terraform. Prepare records it beside the files (EngineFile).
	Engine string
}

func (w Workspace) String() string { return w.Tenant + "/" + w.Name }

// labelRE keeps names safe as path segments.
var labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// maxIdentifier is PostgreSQL's identifier limit; longer schema names would be silently truncated.
const maxIdentifier = names.MaxIdentifier

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
	if w.Stack != "" && !labelRE.MatchString(w.Stack) {
		return &InvalidInputError{Field: "workspace stack", Value: w.Stack, Reason: "must be a stack name"}
	}
	if w.Revision != "" && !planNameRE.MatchString(w.Revision) {
		return &InvalidInputError{Field: "workspace revision", Value: w.Revision, Reason: "must be a commit id"}
	}
	if _, err := parseEngineSpec(w.Engine); err != nil {
		return err
	}
	if w.Schema != "" && !names.IsIdentifier(w.Schema) {
		return &InvalidInputError{Field: "workspace schema", Value: w.Schema,
			Reason: "must be a lowercase PostgreSQL identifier of at most 63 characters"}
	}
	return nil
}

// SchemaName is the pg backend schema of a workspace: the recorded one, or for an instance from
// before names were recorded, slipway_<tenant>_<name> with '-' → '_'.
func SchemaName(w Workspace) string {
	if w.Schema != "" {
		return w.Schema
	}
	return names.Legacy(w.Tenant, w.Name).Schema
}
