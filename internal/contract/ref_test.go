package contract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRef(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct {
		in      string
		want    Ref
		wantErr string
	}{
		{in: "acme/web", want: Ref{Tenant: "acme", Name: "web"}},
		{in: "a-1/b2-c", want: Ref{Tenant: "a-1", Name: "b2-c"}},
		{in: long + "/" + long, want: Ref{Tenant: long, Name: long}},
		{in: "Acme/web", wantErr: `TENANT/NAME: tenant "Acme": must be a DNS-1123 label`},
		{in: "acme/Web", wantErr: `TENANT/NAME: name "Web": must be a DNS-1123 label`},
		{in: "-acme/web", wantErr: `tenant "-acme"`},
		{in: "acme/web-", wantErr: `name "web-"`},
		{in: "ac_me/web", wantErr: `tenant "ac_me"`},
		{in: "acme/" + long + "a", wantErr: `name "` + long + `a"`},
		{in: "/web", wantErr: `tenant "": must be a DNS-1123 label`},
		{in: "acme/", wantErr: `name "": must be a DNS-1123 label`},
		{in: "acme", wantErr: `TENANT/NAME: "acme": must have the form TENANT/NAME`},
		{in: "acme/web/x", wantErr: `"acme/web/x": must have the form TENANT/NAME`},
		{in: "", wantErr: "must have the form TENANT/NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRef(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				var re *RefError
				require.ErrorAs(t, err, &re)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, got.String())
		})
	}
}

func TestRefDir(t *testing.T) {
	assert.Equal(t, "instances/acme/web", Ref{Tenant: "acme", Name: "web"}.Dir())
}
