package argocd

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/deploy"
)

func TestPlacementFollowsTheStack(t *testing.T) {
	d := NewDeployer(newFake(t).client(t))
	for _, tc := range []struct {
		placement deploy.Placement
		project   string
		dest      ApplicationDestination
		own       bool
	}{
		{deploy.Placement{}, "slipway-acme", ApplicationDestination{Server: DefaultDestination, Namespace: "acme-web"}, true},
		{deploy.Placement{Server: "https://10.0.0.1:6443"}, "slipway-acme", ApplicationDestination{Server: "https://10.0.0.1:6443", Namespace: "acme-web"}, true},
		{deploy.Placement{Project: "platform", Cluster: "prod-eu"}, "platform", ApplicationDestination{Name: "prod-eu", Namespace: "acme-web"}, false},
	} {
		app := testApp()
		app.Placement = tc.placement
		project, dest, own := d.placement(app)
		require.Equal(t, tc.project, project)
		require.Equal(t, tc.dest, dest)
		require.Equal(t, tc.own, own)
		want := d.desired(app)
		require.Equal(t, tc.project, want.Spec.Project)
		require.Equal(t, tc.dest, want.Spec.Destination)
	}
}

func TestPlacementRefusedNamesTheStackField(t *testing.T) {
	dest := ApplicationDestination{Server: DefaultDestination, Namespace: "acme-web"}
	for msg, field := range map[string]string{
		"application spec for acme-web is invalid: InvalidSpecError: application destination server 'https://kubernetes.default.svc' and namespace 'acme-web' do not match any of the allowed destinations in project 'platform'": "schema.argocd.destination",
		"application spec for acme-web is invalid: InvalidSpecError: application repo file:///srv/gitops is not permitted in project 'platform'":                                                                                  "schema.argocd.project",
		"application destination spec for acme-web is invalid: there are no clusters with this name: prod-eu":                                                                                                                     "schema.argocd.destination",
	} {
		err := placementRefused(&APIError{Op: "create application acme-web", Status: 400, Message: msg}, "platform", dest)
		var input *InvalidInputError
		require.True(t, errors.As(err, &input), "%s: %v", msg, err)
		require.Equal(t, field, input.Field)
		require.Contains(t, err.Error(), msg, "ArgoCD's own words are kept")
		require.True(t, IsNonRetryable(err))
	}
	other := &APIError{Op: "create application acme-web", Status: 500, Message: "etcd timeout"}
	require.Same(t, error(other), placementRefused(other, "platform", dest), "anything else passes as it is")
}
