package localgit

import (
	"fmt"
	"strings"
)

// RepoError means repoDir cannot be used as the GitOps repository.
type RepoError struct {
	Path    string
	Problem string // e.g. "is not a git repository", "has no branch main"
}

func (e *RepoError) Error() string { return fmt.Sprintf("localgit: %s %s", e.Path, e.Problem) }

// GitError is a git command that failed; ExitCode is -1 when git did not run at all.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *GitError) Error() string {
	msg := fmt.Sprintf("localgit: git %s: %v", strings.Join(e.Args, " "), e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *GitError) Unwrap() error { return e.Err }

// VersionError means the git binary is too old for `merge-tree --write-tree`.
type VersionError struct {
	Binary string
	Have   string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("localgit: %s is git %s; need 2.38 or newer (for merge-tree --write-tree)", e.Binary, e.Have)
}
