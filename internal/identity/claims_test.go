package identity

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The groups claim is read at a dotted path, as a list or a single string; anything else is refused.
func TestStringsClaim(t *testing.T) {
	var claims map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"groups":["a","b"],"one":"solo","realm_access":{"roles":["platform-admins"]},
		"bad":[1],"obj":{"x":1},"null":null}`), &claims))
	cases := map[string]struct {
		path    string
		want    []string
		wantErr string
	}{
		"list":           {path: "groups", want: []string{"a", "b"}},
		"single string":  {path: "one", want: []string{"solo"}},
		"nested":         {path: "realm_access.roles", want: []string{"platform-admins"}},
		"missing":        {path: "nope"},
		"missing nested": {path: "groups.roles"},
		"null":           {path: "null"},
		"numbers":        {path: "bad", wantErr: "not a list of strings"},
		"object":         {path: "obj", wantErr: "not a list of strings"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := stringsClaim(claims, tc.path)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
