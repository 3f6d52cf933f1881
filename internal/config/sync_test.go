package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaSync(t *testing.T) {
	s, err := ParseSchema([]byte("sync: {automated: true, selfHeal: true}\n"))
	require.NoError(t, err)
	require.Equal(t, &Sync{Automated: true, SelfHeal: true}, s.Sync)

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	require.Nil(t, none.Sync, "a stack that says nothing leaves the Application's sync policy alone")

	for _, tc := range []struct{ yaml, msg string }{
		{"sync: true", "schema.sync: must be a mapping with keys automated, selfHeal"},
		{"sync: {automated: yes-please}", "schema.sync.automated: must be true or false"},
		{"sync: {selfHeal: true}", "schema.sync.selfHeal: needs automated: true"},
		{"sync: {automated: true, prune: true}", "schema.sync.prune: unknown field"},
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}
