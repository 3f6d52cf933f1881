package giteastack

import "fmt"

// MissingToolError says the gitea binary or its static files are not there and how to get them.
type MissingToolError struct {
	Component string // "gitea" or "gitea static files"
	Path      string // where it was looked for
	Err       error
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("giteastack: %s not usable at %s (%v): run `scripts/tools.sh gitea` "+
		"(builds Gitea %s into the tool cache once)", e.Component, e.Path, e.Err, Version)
}

func (e *MissingToolError) Unwrap() error { return e.Err }

// ComponentError says a gitea command or the server failed; it carries the log tail.
type ComponentError struct {
	Step    string // e.g. "migrate", "web"
	Err     error
	LogPath string
	LogTail string
}

func (e *ComponentError) Error() string {
	return fmt.Sprintf("giteastack: gitea %s: %v\n--- %s (tail) ---\n%s", e.Step, e.Err, e.LogPath, e.LogTail)
}

func (e *ComponentError) Unwrap() error { return e.Err }

// InvalidError names the argument that is missing or malformed.
type InvalidError struct {
	Field   string
	Problem string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("giteastack: invalid %s: %s", e.Field, e.Problem)
}
