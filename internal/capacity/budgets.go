// Package capacity is the platform's capacity budgets (SLIPWAY_CAPACITY_FILE): how many terraform
// applies or destroys may run at once against one cloud account, provider or cluster. Holding a
// slot is a place in workflows.CapacityWorkflow, one per budget under the ID capacity/<name>.
package capacity

import (
	"bytes"
	"fmt"
	"os"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Var names the platform's budget file; the tenants cannot write it (docs/capacity.md).
const Var = "SLIPWAY_CAPACITY_FILE"

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// Budgets are the platform's budgets: slots by name. The zero value names none.
type Budgets map[string]int

// Slots is the size of budget name; false when the platform names no such budget.
func (b Budgets) Slots(name string) (int, bool) {
	n, ok := b[name]
	return n, ok
}

// Error names the file's bad field and why.
type Error struct {
	File, Field, Reason string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s (%s): %s", Var, e.File, e.Reason)
	}
	return fmt.Sprintf("%s (%s): %s: %s", Var, e.File, e.Field, e.Reason)
}

// FromEnv reads the file $SLIPWAY_CAPACITY_FILE names; unset names no budget.
func FromEnv() (Budgets, error) {
	path := os.Getenv(Var)
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Reason: err.Error()}
	}
	return Parse(path, data)
}

// Parse reads `budgets: [{name: aws-prod, slots: 8}]` from data (the file path).
func Parse(path string, data []byte) (Budgets, error) {
	var doc struct {
		Budgets []struct {
			Name  string `yaml:"name"`
			Slots *int   `yaml:"slots"`
		} `yaml:"budgets"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, &Error{File: path, Reason: "must be `budgets: [{name: NAME, slots: N}]`: " + err.Error()}
	}
	b := Budgets{}
	for i, e := range doc.Budgets {
		field := fmt.Sprintf("budgets[%d]", i)
		switch {
		case !nameRE.MatchString(e.Name):
			return nil, &Error{File: path, Field: field + ".name", Reason: fmt.Sprintf("%q is not a budget name (%s)", e.Name, nameRE)}
		case b[e.Name] != 0:
			return nil, &Error{File: path, Field: field + ".name", Reason: fmt.Sprintf("budget %q is named twice", e.Name)}
		case e.Slots == nil:
			return nil, &Error{File: path, Field: field + ".slots", Reason: "is required: how many steps may draw on the budget at once"}
		case *e.Slots < 1:
			return nil, &Error{File: path, Field: field + ".slots", Reason: fmt.Sprintf("must be at least 1, got %d", *e.Slots)}
		}
		b[e.Name] = *e.Slots
	}
	return b, nil
}
