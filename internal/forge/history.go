package forge

import "context"

// History lists the commits that changed a directory. It is optional: a forge without it
// leaves the commits out of the reports that would name them and gives the range instead.
type History interface {
	// Commits lists, newest first and at most MaxCommits, the commits reachable from to and
	// not from from that changed something under dir.
	Commits(ctx context.Context, from, to, dir string) ([]Commit, error)
}

// MaxCommits bounds what Commits returns: a report names the changes, it is not a log.
const MaxCommits = 20

// Commit is one commit as a report names it.
type Commit struct {
	SHA     string `json:"sha"`
	Author  string `json:"author"`
	Subject string `json:"subject"`
}
