package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoginReturnsToken(t *testing.T) {
	f := newFake(t)
	tok, err := Login(context.Background(), f.srv.URL, "admin", "hunter2")
	require.NoError(t, err)
	require.Equal(t, fakeToken, tok)
	c, err := New(f.srv.URL, tok)
	require.NoError(t, err)
	_, err = c.GetApplication(context.Background(), "nope")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf, "the token from Login is accepted")
}

func TestLoginRefused(t *testing.T) {
	f := newFake(t)
	_, err := Login(context.Background(), f.srv.URL, "admin", "wrong-pass")
	var ue *UnauthorizedError
	require.ErrorAs(t, err, &ue)
	require.True(t, ue.Login)
	require.Contains(t, err.Error(), "Invalid username or password")
	require.Contains(t, err.Error(), "username and password")
	require.NotContains(t, err.Error(), "wrong-pass")
}

func TestLoginInputNamesField(t *testing.T) {
	for _, tc := range []struct{ url, user, pass, field string }{
		{"", "admin", "x", EnvURL},
		{"http://127.0.0.1:1", "", "x", "username"},
		{"http://127.0.0.1:1", "admin", "", "password"},
	} {
		_, err := Login(context.Background(), tc.url, tc.user, tc.pass)
		var ie *InvalidInputError
		require.ErrorAs(t, err, &ie)
		require.Equal(t, tc.field, ie.Field)
	}
}
