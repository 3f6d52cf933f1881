package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorkloadChanges(t *testing.T) {
	deployment := func(image, replicas string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec:
  replicas: ` + replicas + `
  template:
    spec:
      containers: [{name: web, image: ` + image + `}]
`
	}
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {greeting: hi}\n"
	job := func(cmd string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n      containers: [{name: m, image: m, command: [" + cmd + "]}]\n"
	}
	files := func(docs ...string) map[string][]byte {
		out := map[string][]byte{"instance.yaml": []byte("stack: x\n"), "manifests/README.md": []byte("not a manifest")}
		for i, d := range docs {
			out["manifests/"+string(rune('a'+i))+".yaml"] = []byte(d)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		from, to map[string][]byte
		want     []string
	}{
		{"the same", files(deployment("web:1", "1"), cm), files(deployment("web:1", "1"), cm), nil},
		{"replicas only: scaled, not recreated", files(deployment("web:1", "1")), files(deployment("web:1", "3")), nil},
		{"a new image recreates the pods", files(deployment("web:1", "1")), files(deployment("web:2", "1")), []string{"Deployment/web"}},
		{"a removed object is deleted", files(deployment("web:1", "1"), cm), files(deployment("web:1", "1")), []string{"ConfigMap/app"}},
		{"a changed ConfigMap is updated in place", files("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {a: b}\n"),
			files("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {a: c}\n"), nil},
		{"a Job's spec is immutable", files(job("a")), files(job("b")), []string{"Job/migrate"}},
		{"a List's items count", files("apiVersion: v1\nkind: List\nitems:\n- " + "{apiVersion: v1, kind: ConfigMap, metadata: {name: one}}\n"),
			files(), []string{"ConfigMap/one"}},
		{"nothing deployed before", nil, files(deployment("web:1", "1")), nil},
	} {
		got, err := WorkloadChanges(c.from, c.to)
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, got, c.name)
	}
	_, err := WorkloadChanges(files("kind: ConfigMap\n"), nil)
	require.Error(t, err, "a broken manifest is an error, not 'nothing changes'")
}
