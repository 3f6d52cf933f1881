package packaging

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With forge.githubApp the worker acts as the app: its IDs in the environment, the private key
// mounted from the forge Secret as a file, and no token at all.
func TestChartGitHubApp(t *testing.T) {
	manifest, err := Render(t, ns, append(Credential, "--set", "forge.githubApp.appId=12", "--set", "forge.githubApp.installationId=34",
		"--set", "forge.githubApp.privateKeyKey=app.pem")...)
	require.NoError(t, err)
	objs, err := Parse(manifest)
	require.NoError(t, err)
	var pod Object
	for _, o := range objs {
		if o.Kind() == "Deployment" && o.Name() == "slipway-worker" {
			pod = Object(o.Get("spec", "template", "spec").(map[string]any))
		}
	}
	require.NotNil(t, pod)
	ctr := Object(pod.Get("containers", 0).(map[string]any))
	env := envOf(t, ctr)
	assert.Equal(t, "12", env["SLIPWAY_GITHUB_APP_ID"])
	assert.Equal(t, "34", env["SLIPWAY_GITHUB_APP_INSTALLATION_ID"])
	assert.Equal(t, "/etc/slipway/github-app/app.pem", env["SLIPWAY_GITHUB_APP_KEY_FILE"])
	_, token := env["SLIPWAY_FORGE_TOKEN"]
	assert.False(t, token, "an app and a token together stop the worker")
	var mounted, volume bool
	for _, m := range ctr.Get("volumeMounts").([]any) {
		mounted = mounted || m.(map[string]any)["mountPath"] == "/etc/slipway/github-app"
	}
	for _, v := range pod.Get("volumes").([]any) {
		if Object(v.(map[string]any)).Get("name") == "github-app" {
			volume = true
			assert.Equal(t, "slipway-forge", Object(v.(map[string]any)).Get("secret", "secretName"))
			assert.Equal(t, "app.pem", Object(v.(map[string]any)).Get("secret", "items", 0, "key"))
		}
	}
	assert.True(t, mounted && volume, "the key file is mounted from the forge Secret")

	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"forge.githubApp.appId=my-app"}, "/forge/githubApp/appId"},
		{[]string{"forge.githubApp.appId=12", "forge.githubApp.privateKeyKey=app.pem"}, "forge.githubApp.installationId"},
		{[]string{"forge.githubApp.appId=12", "forge.githubApp.installationId=34"}, "forge.githubApp.privateKeyKey"},
		{[]string{"forge.kind=gitlab", "forge.githubApp.appId=12", "forge.githubApp.installationId=34", "forge.githubApp.privateKeyKey=k"}, "forge.githubApp: a GitHub App authenticates forge.kind github only"},
		// The attack: the key itself where only a Secret's key name belongs.
		{[]string{"forge.githubApp.privateKey=-----BEGIN RSA PRIVATE KEY-----"}, "/forge/githubApp"},
	} {
		args := Credential
		for _, s := range c.set {
			args = append(args, "--set", s)
		}
		out, err := Render(t, ns, args...)
		require.Error(t, err, "rendered with %v", c.set)
		assert.Contains(t, err.Error(), c.want, c.set)
		assert.Nil(t, out)
	}
}
