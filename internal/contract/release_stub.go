package contract

// StackRelease stands in for part A's until the merge.
type StackRelease struct {
	Stack, Version, Commit, Tree, Notes, CutBy, CutAt string
}
