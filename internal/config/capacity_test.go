package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaCapacity(t *testing.T) {
	s, err := ParseSchema([]byte("capacity: {apply: aws-prod, destroy: aws-prod}\n"))
	require.NoError(t, err)
	assert.Equal(t, Capacity{Apply: "aws-prod", Destroy: "aws-prod"}, s.Capacity)

	tests := []struct{ in, field, msg string }{
		{"capacity: aws-prod\n", "schema.capacity", "must be a mapping with keys apply, destroy"},
		{"capacity: {plan: aws-prod}\n", "schema.capacity.plan", "unknown field (line 1); allowed: apply, destroy"},
		{"capacity: {apply: [a]}\n", "schema.capacity.apply", "must be the name of a capacity budget"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseSchema([]byte(tc.in))
			var se *StackError
			require.ErrorAs(t, err, &se)
			require.Len(t, se.Errors, 1, "%v", se)
			assert.Equal(t, tc.field, se.Errors[0].Field)
			assert.Contains(t, se.Errors[0].Message, tc.msg)
		})
	}
}
