package argocd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Secret's values never come out of masked: not in data, stringData, nor in kubectl's
// last-applied annotation, which holds the whole object.
func TestMaskedHidesSecretValues(t *testing.T) {
	live := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","managedFields":[{"manager":"x"}],
	"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"aHVudGVyMg==\"}}"}},
	"data":{"password":"aHVudGVyMg=="},"stringData":{"token":"hunter2"}}`
	b, v, err := masked(live)
	require.NoError(t, err)
	require.Equal(t, "v1", v)
	require.NotContains(t, string(b), "aHVudGVyMg==")
	require.NotContains(t, string(b), "hunter2")
	require.NotContains(t, string(b), "managedFields")
	var obj map[string]any
	require.NoError(t, json.Unmarshal(b, &obj))
	require.Equal(t, map[string]any{"password": Masked}, obj["data"])
	require.Equal(t, map[string]any{"token": Masked}, obj["stringData"])

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"greeting":"hello"}}`
	b, _, err = masked(cm)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), `"greeting":"hello"`), "only Secrets are masked: %s", b)

	for _, absent := range []string{"", "null"} {
		b, _, err = masked(absent)
		require.NoError(t, err)
		require.Nil(t, b)
	}
	dep := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1}}`
	_, v, err = masked(dep)
	require.NoError(t, err)
	require.Equal(t, "v1", v)
}
