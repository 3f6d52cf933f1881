package localgit

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/slipway-dev/slipway/internal/errkind"
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

// UnwritableError means the repository cannot be written for a reason that does not go away by
// itself: a read-only file system, permission denied, a full disk, a stale lock file that cannot
// be removed. Retrying cannot help, so the step fails at once (errkind.NotAllowed) naming Cause.
type UnwritableError struct {
	Path  string // the file or directory that could not be written
	Cause string // e.g. "read-only file system"
	Err   error
}

func (e *UnwritableError) Error() string {
	return fmt.Sprintf("localgit: %s cannot be written: %s", e.Path, e.Cause)
}

func (e *UnwritableError) Unwrap() error { return e.Err }

func (e *UnwritableError) Is(target error) bool { return target == errkind.NotAllowed }

// permanent are the errors of a file system that will not change by itself.
var permanent = []syscall.Errno{syscall.EROFS, syscall.EACCES, syscall.EPERM, syscall.ENOSPC, syscall.EDQUOT, syscall.ENOTDIR}

// unwritable is err writing path: an *UnwritableError when it is permanent, else err as it is.
func unwritable(path string, err error) error {
	for _, errno := range permanent {
		if errors.Is(err, errno) {
			return &UnwritableError{Path: path, Cause: errno.Error(), Err: err}
		}
	}
	return fmt.Errorf("localgit: %s: %w", path, err)
}

// causeOf is the errno text of err when it has one ("directory not empty"), else err's text.
func causeOf(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// gitPermanent are the strerror texts in git's messages that unwritable treats as permanent.
var gitPermanent = func() []string {
	var texts []string
	for _, errno := range permanent {
		texts = append(texts, errno.Error())
	}
	return texts
}()

// classifyGit makes a failed git command that hit a permanent file system error an
// *UnwritableError in the git directory; any other error is returned as it is.
func classifyGit(gitDir string, g *GitError) error {
	if gitDir == "" {
		gitDir = "git"
	}
	stderr := strings.ToLower(g.Stderr)
	for _, text := range gitPermanent {
		if strings.Contains(stderr, strings.ToLower(text)) {
			return &UnwritableError{Path: gitDir, Cause: text + " (git " + g.Args[0] + ")", Err: g}
		}
	}
	return g
}
