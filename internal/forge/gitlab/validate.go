package gitlab

import (
	"path"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// validateChange checks everything about c that needs no API call.
func (f *Forge) validateChange(c forge.Change) error {
	if err := f.checkBranch(c.Branch); err != nil {
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

// checkBranch requires a valid git branch name that is not the base branch.
func (f *Forge) checkBranch(branch string) error {
	if problem := validRefName(branch); problem != "" {
		return &forge.InvalidError{Field: "branch", Value: branch, Problem: problem}
	}
	if branch == f.cfg.base {
		return &forge.InvalidError{Field: "branch", Value: branch, Problem: "must not be the base branch"}
	}
	return nil
}

// checkRelPath requires a clean, repo-relative path.
func checkRelPath(field, p string) error {
	bad := func(problem string) error { return &forge.InvalidError{Field: field, Value: p, Problem: problem} }
	switch {
	case p == "":
		return bad("must not be empty")
	case strings.HasPrefix(p, "/"):
		return bad("must be relative, not absolute")
	case strings.ContainsAny(p, "\x00\n\r"):
		return bad("must not contain NUL bytes or newlines")
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

// validRefName applies git's check-ref-format rules for a branch; "" means valid.
func validRefName(name string) string {
	switch {
	case name == "":
		return "must not be empty"
	case name == "@" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") ||
		strings.ContainsAny(name, " ~^:?*[\\\x7f"):
		return "is not a valid git branch name"
	}
	for _, r := range name {
		if r < 0x20 {
			return "is not a valid git branch name"
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return "is not a valid git branch name"
		}
	}
	return ""
}
