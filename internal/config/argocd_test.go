package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaArgoCD(t *testing.T) {
	s, err := ParseSchema([]byte("argocd:\n  project: platform-apps\n  destination:\n    server: https://10.0.0.1:6443\n"))
	require.NoError(t, err)
	require.Equal(t, ArgoCD{Project: "platform-apps", Server: "https://10.0.0.1:6443"}, s.ArgoCD)

	s, err = ParseSchema([]byte("argocd:\n  destination: {name: prod-eu}\n"))
	require.NoError(t, err)
	require.Equal(t, ArgoCD{Cluster: "prod-eu"}, s.ArgoCD)

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	require.Zero(t, none.ArgoCD, "a stack without argocd: keeps the tenant's project on the deployer's cluster")

	for _, tc := range []struct{ yaml, msg string }{
		{"argocd: platform", "schema.argocd: must be a mapping with keys project, destination"},
		{"argocd: {project: Platform}", `schema.argocd.project: "Platform" must be an ArgoCD project name`},
		{"argocd: {project: default}", "schema.argocd.project: must not be ArgoCD's default project"},
		{"argocd: {project: slipway-acme}", `schema.argocd.project: "slipway-acme" is a tenant project slipway makes`},
		{"argocd: {projects: x}", "schema.argocd.projects: unknown field"},
		{"argocd: {destination: {server: ftp://x}}", `schema.argocd.destination.server: "ftp://x" must be the cluster's API URL`},
		{"argocd: {destination: {server: 'https://u:p@x'}}", "schema.argocd.destination.server"},
		{"argocd: {destination: {name: 'a b'}}", `schema.argocd.destination.name: "a b" must be a cluster name`},
		{"argocd: {destination: {server: 'https://x', name: y}}", "schema.argocd.destination: set server or name, not both"},
		{"argocd: {destination: {}}", "schema.argocd.destination: must name the cluster by server or name"},
		{"argocd: {destination: {name: y, namespace: '{{ .Tenant }}'}}", "schema.argocd.destination.namespace: is not supported"},
		{"argocd: {destination: https://x}", "schema.argocd.destination: must be a mapping"},
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}
