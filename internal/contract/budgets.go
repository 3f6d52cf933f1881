package contract

import (
	"fmt"
	"strings"
	"time"
)

// ErrBudget is a terraform step that ran out of its stack's budget (schema.timeouts): terraform
// was interrupted, saved its state and released its lock; retrying would run out again.
const ErrBudget = "BudgetExceeded"

// LeftoverBudget is the kind of the leftover a step that ran out of its budget leaves.
const LeftoverBudget = "terraform-budget"

// Budgets are the stack's budgets for its terraform steps; a zero one keeps the default.
type Budgets struct {
	Plan    time.Duration `json:"plan,omitempty"`
	Apply   time.Duration `json:"apply,omitempty"`
	Destroy time.Duration `json:"destroy,omitempty"`
}

// Budget is how long one terraform step may run before the activity interrupts terraform.
type Budget struct {
	// Op is plan (init and plan), apply or destroy; Field the schema field that set it.
	Op    string        `json:"op"`
	Field string        `json:"field"`
	Limit time.Duration `json:"limit"`
}

// For is op's budget; ok is false when the stack keeps the default for it.
func (b *Budgets) For(op string) (Budget, bool) {
	if b == nil {
		return Budget{}, false
	}
	var d time.Duration
	switch op {
	case "plan":
		d = b.Plan
	case "apply":
		d = b.Apply
	case "destroy":
		d = b.Destroy
	}
	if d <= 0 {
		return Budget{}, false
	}
	return Budget{Op: op, Field: "schema.timeouts." + op, Limit: d}, true
}

// RanOut is the message of a step that ran out of b: it names the budget and its field.
func (b Budget) RanOut() string {
	return fmt.Sprintf("%s budget %s (%s) ran out", b.Op, shortDuration(b.Limit), b.Field)
}

// shortDuration writes d as a stack would: 2m, 1h30m, 90s rather than 2m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
