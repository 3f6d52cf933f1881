package terraform

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		stateDir string
		opts     []Option
		field    string
	}{
		"empty state dir":  {"", nil, "stateDir"},
		"empty binary":     {t.TempDir(), []Option{WithBinary("")}, "WithBinary path"},
		"zero wait delay":  {t.TempDir(), []Option{WithBinary(os.Args[0]), WithWaitDelay(0)}, "WithWaitDelay"},
		"blank state dir ": {"  ", nil, "stateDir"},
	}
	for name, c := range cases {
		_, err := New(c.stateDir, c.opts...)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, c.field, ie.Field, name)
	}
	_, err := New(t.TempDir(), WithBinary("/nonexistent/terraform"))
	var nf *NotFoundError
	assert.ErrorAs(t, err, &nf)
}

func TestEnvForTerraform(t *testing.T) {
	t.Setenv("PG_CONN_STR", "postgres://inherited")
	t.Setenv("TF_DATA_DIR", "/shared")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("SLIPWAY_CODEC_KEY", "k1:secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	local, err := New(t.TempDir(), WithBinary(os.Args[0]))
	require.NoError(t, err)
	ws := Workspace{Tenant: "acme", Name: "web"}
	env, err := local.env(context.Background(), ws)
	require.NoError(t, err)
	assert.NotContains(t, env, "PG_CONN_STR", "a local runner must not inherit a pg connection")
	assert.NotContains(t, env, "TF_DATA_DIR")
	assert.NotContains(t, env, "TF_LOG", "terraform-exec manages TF_LOG")
	assert.NotContains(t, env, "SLIPWAY_CODEC_KEY", "nothing of the worker's is inherited")
	assert.NotContains(t, env, "AWS_REGION", "a variable no allow-list names is not inherited")
	assert.Equal(t, "1", env["CHECKPOINT_DISABLE"])
	assert.Equal(t, local.homeDir(ws), env["HOME"])
	assert.Equal(t, os.Getenv("PATH"), env["PATH"])

	pg, err := New(t.TempDir(), WithBinary(os.Args[0]), WithPGBackend("postgres://mine"))
	require.NoError(t, err)
	env, err = pg.env(context.Background(), ws)
	require.NoError(t, err)
	assert.Equal(t, "postgres://mine", env["PG_CONN_STR"])
}
