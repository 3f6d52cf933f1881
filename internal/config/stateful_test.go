package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaStateful(t *testing.T) {
	s, err := ParseSchema([]byte("stateful: [aws_db_instance, aws_s3_bucket.data, module.db.aws_rds_cluster.main]\napproval: never\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"aws_db_instance", "aws_s3_bucket.data", "module.db.aws_rds_cluster.main"}, s.Stateful)

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	require.Nil(t, none.Stateful, "a stack from before stateful: marks nothing")

	for _, tc := range []struct{ yaml, msg string }{
		{"stateful: aws_db_instance", "schema.stateful: must be a list of terraform resource types or addresses"},
		{"stateful: [\"\"]", `schema.stateful: "" is not a terraform resource type`},
		{"stateful: [\"aws_db_instance.main[0]\"]", `"aws_db_instance.main[0]" is not a terraform resource type`},
		{"stateful: [\"db; rm -rf\"]", `"db; rm -rf" is not`},
		{"stateful: [{a: b}]", "schema.stateful"},
		{"stateful: [aws_db_instance, aws_db_instance]", `"aws_db_instance" is listed twice`},
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}
