package config

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

func TestRefDirAndNamespace(t *testing.T) {
	r := Ref{Tenant: "acme", Name: "web"}
	assert.Equal(t, "instances/acme/web", r.Dir())
	assert.Equal(t, "acme-web", r.Namespace())

	exact := Ref{Tenant: strings.Repeat("t", 31), Name: strings.Repeat("n", 31)}
	assert.Equal(t, exact.Tenant+"-"+exact.Name, exact.Namespace(), "63 characters fit unchanged")

	// Two long refs that share the first 54 characters of "<tenant>-<name>" must not collide.
	a := Ref{Tenant: strings.Repeat("x", 40), Name: strings.Repeat("y", 40)}
	b := Ref{Tenant: strings.Repeat("x", 40), Name: strings.Repeat("y", 39) + "z"}
	for _, r := range []Ref{a, b} {
		ns := r.Namespace()
		assert.LessOrEqual(t, len(ns), 63)
		assert.True(t, isLabel(ns), "%q is a DNS-1123 label", ns)
		assert.Equal(t, ns, r.Namespace(), "deterministic")
	}
	assert.NotEqual(t, a.Namespace(), b.Namespace())

	// A cut that ends on '-' must not leave "--" or a trailing '-' before the hash.
	dash := Ref{Tenant: strings.Repeat("d", 53), Name: strings.Repeat("e", 20)}
	assert.True(t, isLabel(dash.Namespace()))
	assert.NotContains(t, dash.Namespace(), "--")
}
