package workflows

// Operation results.
const (
	ResultResolved  = "resolved"
	ResultAbandoned = "abandoned"
)

const (
	historyKept = 20
)
