package forge

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateChangeNamesTheField(t *testing.T) {
	ok := Change{Branch: "slipway/a/b/deploy-1-x", Title: "t", Dir: "instances/a/b", Files: map[string][]byte{"x/y": nil}}
	require.NoError(t, ValidateChange(ok, "main"))
	cases := map[string]func(c *Change){
		"branch":          func(c *Change) { c.Branch = "main" },
		"title":           func(c *Change) { c.Title = "two\nlines" },
		"dir":             func(c *Change) { c.Dir = "../escape" },
		"files[x]":        func(c *Change) { c.Files = map[string][]byte{"x": nil, "x/y": nil} },
		"files[a/.git/b]": func(c *Change) { c.Files = map[string][]byte{"a/.git/b": nil} },
	}
	for field, mutate := range cases {
		c := ok
		mutate(&c)
		var ie *InvalidError
		require.ErrorAs(t, ValidateChange(c, "main"), &ie, field)
		require.Equal(t, field, ie.Field)
	}
	for _, bad := range []string{"", "-x", "a..b", "a b", "a.lock", "a/.b", "x~1", "a//b", "a/"} {
		require.Error(t, CheckRefName("branch", bad), bad)
	}
}
