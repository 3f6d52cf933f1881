package localgit

import (
	"strconv"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Option configures a Forge.
type Option func(*config)

type config struct {
	base        string
	authorName  string
	authorEmail string
	gitBinary   string
	attempts    int
	staleAfter  time.Duration // a git lock file older than this, found under the writer lock, is removed
	lockWait    time.Duration // how long a writer waits for another live one before it is busy
}

func defaultConfig() config {
	return config{base: "main", authorName: "slipway", authorEmail: "slipway@localhost", gitBinary: "git", attempts: 50,
		staleAfter: 10 * time.Second, lockWait: 10 * time.Second}
}

// WithBaseBranch sets the branch MRs merge into (default "main").
func WithBaseBranch(name string) Option { return func(c *config) { c.base = name } }

// WithAuthor sets the author and committer of every commit (default "slipway <slipway@localhost>").
func WithAuthor(name, email string) Option {
	return func(c *config) { c.authorName, c.authorEmail = name, email }
}

// WithGitBinary sets the git executable (default "git" on PATH).
func WithGitBinary(path string) Option { return func(c *config) { c.gitBinary = path } }

// WithMergeAttempts bounds how often Merge recomputes the merge after losing the race for
// the base branch before it returns forge.ErrBaseMoved, or *forge.LockedError when a writer
// outside slipway held the branch's lock (default 50).
func WithMergeAttempts(n int) Option { return func(c *config) { c.attempts = n } }

func newConfig(opts []Option) (config, error) {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.base == "" || strings.HasPrefix(c.base, "-") || strings.ContainsAny(c.base, " \t\n\x00"):
		return c, &forge.InvalidError{Field: "base branch", Value: c.base, Problem: "must be a plain branch name"}
	case strings.TrimSpace(c.authorName) == "" || strings.ContainsAny(c.authorName, "<>\n\x00"):
		return c, &forge.InvalidError{Field: "author name", Value: c.authorName, Problem: "must be non-empty without <, > or newlines"}
	case !strings.Contains(c.authorEmail, "@") || strings.ContainsAny(c.authorEmail, "<> \n\x00"):
		return c, &forge.InvalidError{Field: "author email", Value: c.authorEmail, Problem: "must look like user@host"}
	case c.gitBinary == "":
		return c, &forge.InvalidError{Field: "git binary", Problem: "must not be empty"}
	case c.attempts < 1:
		return c, &forge.InvalidError{Field: "merge attempts", Value: strconv.Itoa(c.attempts), Problem: "must be at least 1"}
	}
	return c, nil
}
