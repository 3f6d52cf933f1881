package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Bad engine flags exit 2 naming the flag, before anything starts.
func TestDevEngineFlagsAreChecked(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown engine":         {[]string{"dev", "--temporal", "cassandra"}, `--temporal: "cassandra" is not one of dev, postgres`},
		"zero nodes":             {[]string{"dev", "--temporal", "postgres", "--temporal-nodes", "0"}, "--temporal-nodes: 0 is not in 1-9"},
		"too many nodes":         {[]string{"dev", "--temporal", "postgres", "--temporal-nodes", "12"}, "--temporal-nodes: 12"},
		"nodes for a dev server": {[]string{"dev", "--temporal-nodes", "2"}, "--temporal-nodes: only with --temporal postgres"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), append(tc.args, "--state-dir", t.TempDir(), "--deployer", "none"),
				Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
			require.Equal(t, ExitUsage, code, errb.String())
			require.Contains(t, errb.String(), tc.want)
		})
	}
}
