package argocd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/steps"
)

func TestAppName(t *testing.T) {
	require.Equal(t, "acme-web", AppName(steps.Ref{Tenant: "acme", Name: "web"}))

	dns := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	long := steps.Ref{Tenant: strings.Repeat("t", 40), Name: strings.Repeat("n", 40)}
	n := AppName(long)
	require.Len(t, n, 53)
	require.Regexp(t, dns, n)
	require.True(t, strings.HasPrefix(n, strings.Repeat("t", 40)+"-nnn"))
	require.Equal(t, n, AppName(long), "stable")
	other := steps.Ref{Tenant: strings.Repeat("t", 40), Name: strings.Repeat("n", 39) + "x"}
	require.NotEqual(t, n, AppName(other), "names sharing a long prefix stay distinct")

	odd := AppName(steps.Ref{Tenant: "Acme", Name: "web_1"})
	require.Regexp(t, dns, odd)
	require.NotEqual(t, "acme-web-1", odd, "a rewritten name carries a hash so it cannot collide")
}

func TestDeployerName(t *testing.T) {
	c, err := New("https://argocd.example.com", "tok")
	require.NoError(t, err)
	require.Equal(t, "argocd", NewDeployer(c).Name())
}
