package argocd

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeployerName(t *testing.T) {
	c, err := New("https://argocd.example.com", "tok")
	require.NoError(t, err)
	require.Equal(t, "argocd", NewDeployer(c).Name())
}

// The Application is named by the instance's recorded name, never recomputed from the ref.
func TestApplicationIsTheRecordedName(t *testing.T) {
	c, err := New("https://argocd.example.com", "tok")
	require.NoError(t, err)
	app := testApp()
	app.Application = "acme-web--0123456789"
	require.Equal(t, "acme-web--0123456789", NewDeployer(c).desired(app).Metadata.Name)

	app.Application = ""
	var ie *InvalidInputError
	require.ErrorAs(t, validate(app, false), &ie)
	require.Equal(t, "app.Application", ie.Field)
}
