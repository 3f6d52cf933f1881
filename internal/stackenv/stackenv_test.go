package stackenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	a, err := Parse(" web = AWS_ACCESS_KEY_ID, AWS_REGION ; *=HTTPS_PROXY;")
	require.NoError(t, err)
	assert.Equal(t, []string{"AWS_ACCESS_KEY_ID", "AWS_REGION", "HTTPS_PROXY"}, a.Names("web"))
	assert.Equal(t, []string{"HTTPS_PROXY"}, a.Names("db"))
	assert.Equal(t, "*=HTTPS_PROXY;web=AWS_ACCESS_KEY_ID,AWS_REGION", a.String())
	env := map[string]string{"AWS_REGION": "eu-west-1", "HTTPS_PROXY": "http://p:3128", "SLIPWAY_CODEC_KEY": "k"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	assert.Equal(t, map[string]string{"AWS_REGION": "eu-west-1", "HTTPS_PROXY": "http://p:3128"}, a.Values("web", lookup))
	assert.Equal(t, map[string]string{"HTTPS_PROXY": "http://p:3128"}, a.Values("db", lookup))

	empty, err := Parse("")
	require.NoError(t, err)
	assert.Empty(t, empty.Names("web"))
	var zero AllowList
	assert.Empty(t, zero.Values("web", lookup))
}

func TestParseRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"web":                        `SLIPWAY_STACK_ENV: "web" must be STACK=VAR`,
		"web=AWS_KEY;web=X":          `SLIPWAY_STACK_ENV: "web" appears twice`,
		"Web!=X":                     `SLIPWAY_STACK_ENV: "Web!" is not a stack name or *`,
		"web=1BAD":                   `SLIPWAY_STACK_ENV: "1BAD" is not an environment variable name`,
		"web=":                       `SLIPWAY_STACK_ENV: "" is not an environment variable name`,
		"*=SLIPWAY_CODEC_KEY":        `SLIPWAY_STACK_ENV: "SLIPWAY_CODEC_KEY" is one of slipway's own settings`,
		"web=AWS_REGION,PG_CONN_STR": `SLIPWAY_STACK_ENV: "PG_CONN_STR" is set by slipway itself`,
		"web=PGPASSWORD":             `SLIPWAY_STACK_ENV: "PGPASSWORD" is one of slipway's own settings`,
		"web=TEMPORAL_ADDRESS":       `SLIPWAY_STACK_ENV: "TEMPORAL_ADDRESS" is one of slipway's own settings`,
		"web=HOME":                   `SLIPWAY_STACK_ENV: "HOME" is set by slipway itself`,
	} {
		_, err := Parse(in)
		var e *Error
		require.ErrorAs(t, err, &e, in)
		assert.Contains(t, err.Error(), want, in)
	}
}
