package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBudgetRanOutNamesItAsTheStackWrites(t *testing.T) {
	for d, want := range map[time.Duration]string{2 * time.Minute: "2m", 2 * time.Hour: "2h", 90 * time.Minute: "1h30m",
		3 * time.Second: "3s", 90 * time.Second: "1m30s"} {
		b, ok := (&Budgets{Apply: d}).For("apply")
		assert.True(t, ok)
		assert.Equal(t, "apply budget "+want+" (schema.timeouts.apply) ran out", b.RanOut())
	}
	_, ok := (&Budgets{Apply: time.Minute}).For("destroy")
	assert.False(t, ok, "a budget the stack leaves out keeps the default")
	_, ok = (*Budgets)(nil).For("apply")
	assert.False(t, ok)
}
