package postgres

import "fmt"

// MissingError says a PostgreSQL binary is not installed.
type MissingError struct{ Msg string }

func (e *MissingError) Error() string { return e.Msg }

// DataDirError says the server's OS user cannot use a kept data directory.
type DataDirError struct {
	Dir     string
	Blocker string // the directory that stops it
	Reason  string
}

func (e *DataDirError) Error() string {
	return fmt.Sprintf("postgres: data dir %s: %s: %s", e.Dir, e.Blocker, e.Reason)
}
