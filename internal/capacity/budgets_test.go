package capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBudgets(t *testing.T) {
	b, err := Parse("capacity.yaml", []byte("budgets:\n- {name: aws-prod, slots: 8}\n- {name: gke-eu, slots: 1}\n"))
	require.NoError(t, err)
	n, ok := b.Slots("aws-prod")
	assert.True(t, ok)
	assert.Equal(t, 8, n)
	_, ok = b.Slots("aws-dev")
	assert.False(t, ok)

	tests := []struct{ in, field, msg string }{
		{"budgets: [{name: aws-prod, slots: 0}]", "budgets[0].slots", "must be at least 1, got 0"},
		{"budgets: [{name: aws-prod, slots: -2}]", "budgets[0].slots", "must be at least 1, got -2"},
		{"budgets: [{name: aws-prod}]", "budgets[0].slots", "is required"},
		{"budgets: [{name: AWS, slots: 1}]", "budgets[0].name", "is not a budget name"},
		{"budgets: [{name: a, slots: 1}, {name: a, slots: 2}]", "budgets[1].name", "named twice"},
		{"budgets: [{name: a, slots: 1, size: 2}]", "", "field size not found"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse("capacity.yaml", []byte(tc.in))
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.field, e.Field)
			assert.Contains(t, e.Error(), tc.msg)
			assert.Contains(t, e.Error(), Var)
		})
	}
}
