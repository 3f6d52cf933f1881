package workflows

const (
	historyKept = 20
)
