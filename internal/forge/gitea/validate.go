package gitea

import (
	"path"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// validateChange checks everything about c that needs no server.
func validateChange(c forge.Change) error {
	if err := checkRefName("branch", c.Branch); err != nil {
		return err
	}
	if strings.TrimSpace(c.Title) == "" {
		return &forge.InvalidError{Field: "title", Problem: "must not be empty"}
	}
	if strings.ContainsAny(c.Title, "\r\n\x00") {
		return &forge.InvalidError{Field: "title", Value: c.Title, Problem: "must be one line without NUL bytes"}
	}
	if strings.ContainsRune(c.Body, 0) {
		return &forge.InvalidError{Field: "body", Problem: "must not contain NUL bytes"}
	}
	if err := checkRelPath("dir", c.Dir); err != nil {
		return err
	}
	names := make([]string, 0, len(c.Files))
	for name := range c.Files {
		if err := checkRelPath("files["+name+"]", name); err != nil {
			return err
		}
		names = append(names, name)
	}
	sort.Strings(names) // the first offence reported is deterministic
	for _, name := range names {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if _, ok := c.Files[dir]; ok {
				return &forge.InvalidError{Field: "files[" + dir + "]", Problem: "is both a file and the directory of " + name}
			}
		}
	}
	return nil
}

// checkRelPath requires a clean, repo-relative path that git can store.
func checkRelPath(field, p string) error {
	bad := func(problem string) error { return &forge.InvalidError{Field: field, Value: p, Problem: problem} }
	switch {
	case p == "":
		return bad("must not be empty")
	case strings.HasPrefix(p, "/"):
		return bad("must be relative, not absolute")
	case strings.ContainsRune(p, 0):
		return bad("must not contain NUL bytes")
	case path.Clean(p) != p || p == ".":
		return bad("must be a clean path (no ./, //, trailing / or bare .)")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return bad("must not contain ..")
		}
		if strings.EqualFold(part, ".git") {
			return bad("must not contain a .git element")
		}
	}
	return nil
}

// checkRefName applies git check-ref-format's rules for a branch name (no git binary here).
func checkRefName(field, name string) error {
	bad := func(problem string) error { return &forge.InvalidError{Field: field, Value: name, Problem: problem} }
	switch {
	case name == "":
		return bad("must not be empty")
	case name == "@" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return bad("is not a valid git branch name")
	case strings.HasSuffix(name, ".") || strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{"):
		return bad("is not a valid git branch name (no .., //, @{ or trailing .)")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return bad("is not a valid git branch name (no spaces, control characters or ~^:?*[\\)")
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("is not a valid git branch name (no element starting with . or ending in .lock)")
		}
	}
	return nil
}
