package workerapp

import "fmt"

// MissingError is a worker built without something every worker needs.
type MissingError struct {
	Field string
	Hint  string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("worker: %s is not set (%s)", e.Field, e.Hint)
}
