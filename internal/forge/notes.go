package forge

import "context"

type noteKey struct{}

// WithNotes has a backend tell note what it repaired on its own during a call (localgit: a stale
// lock file a killed writer left), so the step that made the call can log it with its instance.
func WithNotes(ctx context.Context, note func(msg string, attrs ...any)) context.Context {
	return context.WithValue(ctx, noteKey{}, note)
}

// Note reports a repair to the note func of ctx; without one it is dropped.
func Note(ctx context.Context, msg string, attrs ...any) {
	if note, ok := ctx.Value(noteKey{}).(func(string, ...any)); ok {
		note(msg, attrs...)
	}
}

// WriteChecker is a forge that can say why it cannot be written (localgit: a read-only or full
// disk, a lock file it cannot remove); a failed step's leftovers name that cause.
type WriteChecker interface {
	CheckWritable(ctx context.Context) error
}
