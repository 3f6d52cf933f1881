package terraform

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

type noteKey struct{}

// WithNotes has the runner tell note what it repaired on its own during a call (what an init
// killed with its worker left: a plugin cache it was installing into, a temporary file), so the
// step that made the call can log it with its instance.
func WithNotes(ctx context.Context, note func(msg string, attrs ...any)) context.Context {
	return context.WithValue(ctx, noteKey{}, note)
}

// noteRepair reports a repair to ctx's note func and as an event on its trace span.
func noteRepair(ctx context.Context, msg string, attrs ...any) {
	if note, ok := ctx.Value(noteKey{}).(func(string, ...any)); ok {
		note(msg, attrs...)
	}
	var kvs []attribute.KeyValue
	for i := 0; i+1 < len(attrs); i += 2 {
		kvs = append(kvs, attribute.String(fmt.Sprint(attrs[i]), fmt.Sprint(attrs[i+1])))
	}
	trace.SpanFromContext(ctx).AddEvent(msg, trace.WithAttributes(kvs...))
}
