package terraform

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkspaceValidation(t *testing.T) {
	t.Parallel()
	r, err := New(t.TempDir(), WithBinary(os.Args[0]))
	require.NoError(t, err)
	cases := map[string]struct {
		ws    Workspace
		field string
	}{
		"empty tenant":    {Workspace{Name: "x"}, "workspace tenant"},
		"empty name":      {Workspace{Tenant: "x"}, "workspace name"},
		"path in tenant":  {Workspace{Tenant: "../x", Name: "y"}, "workspace tenant"},
		"upper case":      {Workspace{Tenant: "x", Name: "Web"}, "workspace name"},
		"underscore":      {Workspace{Tenant: "a_b", Name: "y"}, "workspace tenant"},
		"trailing dash":   {Workspace{Tenant: "x", Name: "y-"}, "workspace name"},
		"schema too long": {Workspace{Tenant: strings.Repeat("t", 30), Name: strings.Repeat("n", 30)}, "workspace"},
		"bad schema":      {Workspace{Tenant: "x", Name: "y", Schema: "slipway_x-y"}, "workspace schema"},
	}
	for name, c := range cases {
		err := r.Prepare(context.Background(), c.ws, map[string][]byte{"main.tf": nil})
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie, name)
		assert.Equal(t, c.field, ie.Field, name)
	}
}

func TestSchemaName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "slipway_acme_web_1", SchemaName(Workspace{Tenant: "acme", Name: "web-1"}), "no recorded schema: the old name")
	long := Workspace{Tenant: strings.Repeat("t", 30), Name: strings.Repeat("n", 30), Schema: "slipway_tt__0123456789"}
	assert.Equal(t, long.Schema, SchemaName(long), "the recorded schema wins")
	require.NoError(t, long.validate(), "a long ref with a recorded schema is fine")
}
