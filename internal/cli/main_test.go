package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Usage errors exit 2 and name the flag or argument, before anything is dialled.
func TestUsageErrorsExitTwo(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown command":      {[]string{"frob"}, "unknown command"},
		"missing ref":          {[]string{"deploy"}, "TENANT/NAME"},
		"bad ref":              {[]string{"archive", "acme/Web"}, `name "Web"`},
		"unknown flag":         {[]string{"status", "acme/web", "--colour"}, "--colour"},
		"create without -f":    {[]string{"create", "acme/web"}, "-f/--file"},
		"missing file":         {[]string{"create", "acme/web", "-f", "/nonexistent.yaml"}, "-f/--file"},
		"deprovision no --yes": {[]string{"deprovision", "acme/web"}, "--yes"},
		"bad resolve --to":     {[]string{"resolve", "acme/web", "--reason", "x", "--to", "Fine"}, "--to"},
		"empty --force-unlock": {[]string{"resolve", "acme/web", "--reason", "x", "--force-unlock", ""}, "--force-unlock"},
		"unlock with --to":     {[]string{"resolve", "acme/web", "--reason", "x", "--force-unlock", "id", "--to", "Deployed"}, "--to"},
		"retry --force-unlock": {[]string{"retry", "acme/web", "--force-unlock", "id"}, "--force-unlock"},
		"bad status output":    {[]string{"status", "acme/web", "-o", "everything"}, "--output"},
		"bad list state":       {[]string{"list", "--state", "Bogus"}, "--state"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), tc.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
			require.Equal(t, ExitUsage, code, errb.String())
			require.Contains(t, errb.String(), tc.want)
		})
	}
}
