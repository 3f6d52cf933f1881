package client

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountReleasesGroupsByReleaseAndTenant(t *testing.T) {
	got := CountReleases([]ListItem{
		{Tenant: "b", Release: "web@1.1.0", Ready: "True"},
		{Tenant: "a", Release: "web@1.0.0", Ready: "True"},
		{Tenant: "a", Release: "web@1.0.0", Ready: "False"},
		{Tenant: "a", Release: "web@1.1.0"},
		{Tenant: "a"},
	})
	require.Equal(t, []ReleaseCount{
		{Release: "", Tenant: "a", Total: 1},
		{Release: "web@1.0.0", Tenant: "a", Total: 2, Ready: 1},
		{Release: "web@1.1.0", Tenant: "a", Total: 1},
		{Release: "web@1.1.0", Tenant: "b", Total: 1, Ready: 1},
	}, got)
}
