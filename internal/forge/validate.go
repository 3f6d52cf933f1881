package forge

import (
	"path"
	"sort"
	"strings"
)

// ValidateChange checks everything about c that needs no call to the forge, naming
// the offending field; base is the base branch, which c.Branch must not be.
func ValidateChange(c Change, base string) error {
	if err := CheckBranch(c.Branch, base); err != nil {
		return err
	}
	if strings.TrimSpace(c.Title) == "" {
		return &InvalidError{Field: "title", Problem: "must not be empty"}
	}
	if strings.ContainsAny(c.Title, "\r\n\x00") {
		return &InvalidError{Field: "title", Value: c.Title, Problem: "must be one line without NUL bytes"}
	}
	if strings.ContainsRune(c.Body, 0) {
		return &InvalidError{Field: "body", Problem: "must not contain NUL bytes"}
	}
	if err := CheckRelPath("dir", c.Dir); err != nil {
		return err
	}
	return CheckFiles("files", c.Files)
}

// CheckFiles requires clean relative paths, none of which is also another's directory.
func CheckFiles(field string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if err := CheckRelPath(field+"["+name+"]", name); err != nil {
			return err
		}
		names = append(names, name)
	}
	sort.Strings(names) // the first offence reported is deterministic
	for _, name := range names {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if _, ok := files[dir]; ok {
				return &InvalidError{Field: field + "[" + dir + "]", Problem: "is both a file and the directory of " + name}
			}
		}
	}
	return nil
}

// CheckRelPath requires a clean, repo-relative path that every forge can store.
func CheckRelPath(field, p string) error {
	bad := func(problem string) error { return &InvalidError{Field: field, Value: p, Problem: problem} }
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

// CheckBranch requires a valid branch name other than the base branch.
func CheckBranch(branch, base string) error {
	if err := CheckRefName("branch", branch); err != nil {
		return err
	}
	if branch == base {
		return &InvalidError{Field: "branch", Value: branch, Problem: "must not be the base branch"}
	}
	return nil
}

// CheckRefName applies git check-ref-format's rules for a branch name, without git.
func CheckRefName(field, name string) error {
	bad := func(problem string) error { return &InvalidError{Field: field, Value: name, Problem: problem} }
	if name == "" {
		return bad("must not be empty")
	}
	if name == "@" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.Contains(name, "..") || strings.Contains(name, "//") ||
		strings.Contains(name, "@{") || strings.ContainsAny(name, " ~^:?*[\\\x7f") {
		return bad("is not a valid git branch name")
	}
	for _, r := range name {
		if r < 0x20 {
			return bad("is not a valid git branch name")
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("is not a valid git branch name")
		}
	}
	return nil
}
