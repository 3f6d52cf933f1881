package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaTimeoutsAndCredentials(t *testing.T) {
	s, err := ParseSchema([]byte("timeouts: {plan: 30m, apply: 2h}\ncredentials: [cloud, dns]\n"))
	require.NoError(t, err)
	assert.Equal(t, Timeouts{Plan: 30 * time.Minute, Apply: 2 * time.Hour}, s.Timeouts)
	assert.Equal(t, []string{"cloud", "dns"}, s.Credentials)

	none, err := ParseSchema([]byte("description: x\n"))
	require.NoError(t, err)
	assert.True(t, none.Timeouts.IsZero(), "no timeouts: the defaults")
	assert.Empty(t, none.Credentials)
}

func TestSchemaTimeoutsAndCredentialsErrors(t *testing.T) {
	tests := []struct{ in, field, msg string }{
		{"timeouts: 2h\n", "schema.timeouts", "must be a mapping with keys plan, apply, destroy"},
		{"timeouts: {apply: 2}\n", "schema.timeouts.apply", "must be a Go duration such as 30m or 2h, got"},
		{"timeouts: {apply: soon}\n", "schema.timeouts.apply", `"soon" is not a Go duration`},
		{"timeouts: {apply: 0s}\n", "schema.timeouts.apply", "must be between 1s and 24h0m0s, got 0s"},
		{"timeouts: {destroy: -5m}\n", "schema.timeouts.destroy", "must be between"},
		{"timeouts: {plan: 25h}\n", "schema.timeouts.plan", "must be between"},
		{"timeouts: {init: 5m}\n", "schema.timeouts.init", "unknown field (line 1); allowed: plan, apply, destroy"},
		{"credentials: cloud\n", "schema.credentials", "must be a list of credential names"},
		{"credentials: [Cloud]\n", "schema.credentials[0]", "must be a name matching"},
		{"credentials: [cloud, cloud]\n", "schema.credentials[1]", `duplicate credential "cloud" (first at schema.credentials[0])`},
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
