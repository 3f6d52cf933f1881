package localgit

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// validateChange checks everything about c that does not need git.
func validateChange(c forge.Change) error {
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
	return checkFiles("files", c.Files)
}

// checkFiles checks file keys are clean relative paths and none is also a directory of another.
func checkFiles(field string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if err := checkRelPath(field+"["+name+"]", name); err != nil {
			return err
		}
		names = append(names, name)
	}
	sort.Strings(names) // the first offence reported is deterministic
	for _, name := range names {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if _, ok := files[dir]; ok {
				return &forge.InvalidError{Field: field + "[" + dir + "]", Problem: "is both a file and the directory of " + name}
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

// checkRefName asks git whether name is a valid branch name, so the rules are git's own.
func (f *Forge) checkRefName(ctx context.Context, field, name string) error {
	bad := func(problem string) error { return &forge.InvalidError{Field: field, Value: name, Problem: problem} }
	if name == "" {
		return bad("must not be empty")
	}
	if strings.HasPrefix(name, "-") || strings.ContainsAny(name, "\x00\n") {
		return bad("is not a valid git branch name")
	}
	if _, err := f.git.run(ctx, nil, nil, "check-ref-format", "refs/heads/"+name); err != nil {
		if exitCode(err) == 1 {
			return bad("is not a valid git branch name")
		}
		return err
	}
	return nil
}

// checkBranch validates an MR branch: a valid name that is not the base branch.
func (f *Forge) checkBranch(ctx context.Context, branch string) error {
	if err := f.checkRefName(ctx, "branch", branch); err != nil {
		return err
	}
	if branch == f.base {
		return &forge.InvalidError{Field: "branch", Value: branch, Problem: "must not be the base branch"}
	}
	return nil
}
