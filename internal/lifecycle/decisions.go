package lifecycle

// Decision is an operator's answer to a <Step>Failed state.
type Decision string

const (
	// DecisionRetry continues the failed operation from its failed step.
	DecisionRetry Decision = "retry"
	// DecisionResolve says the leftovers were cleaned up by hand: back to the last good state.
	DecisionResolve Decision = "resolve"
	// DecisionAbandon gives up on the operation: back to the last good state, leftovers kept on record.
	DecisionAbandon Decision = "abandon"
)

// ParseDecision accepts retry, resolve or abandon.
func ParseDecision(s string) (Decision, bool) {
	switch d := Decision(s); d {
	case DecisionRetry, DecisionResolve, DecisionAbandon:
		return d, true
	}
	return "", false
}
