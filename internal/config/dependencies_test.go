package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const appSchema = `parameters:
  - {name: network, type: string, required: true}
  - {name: subnet, type: string, default: ""}
  - {name: replicas, type: int, default: 1}
dependencies:
  - name: network
    stack: network
    instance: network
    outputs: {subnet: subnet}
    onChange: deploy
`

func TestDependenciesParse(t *testing.T) {
	s, err := ParseSchema([]byte(appSchema))
	require.NoError(t, err)
	require.Equal(t, []Dependency{{Name: "network", Stack: "network", Instance: "network",
		Outputs: map[string]string{"subnet": "subnet"}, OnChange: OnChangeDeploy}}, s.Dependencies)

	d := s.Dependencies[0]
	got, err := d.Target("acme", map[string]any{"network": "net"})
	require.NoError(t, err)
	require.Equal(t, "acme/net", got, "a bare name is in the dependent's tenant")
	got, err = d.Target("acme", map[string]any{"network": "infra/net"})
	require.NoError(t, err)
	require.Equal(t, "infra/net", got)
	_, err = d.Target("acme", map[string]any{"network": "../x"})
	require.ErrorContains(t, err, "parameter network")
}

func TestBadDependenciesNameTheField(t *testing.T) {
	params := "parameters:\n  - {name: network, type: string}\n  - {name: subnet, type: string}\n  - {name: replicas, type: int}\n"
	for doc, field := range map[string]string{
		"dependencies: network\n": "schema.dependencies",
		"dependencies: [{name: net, stack: network, instance: network, onChange: now}]\n":                                  "schema.dependencies[0].onChange",
		"dependencies: [{name: Net, stack: network, instance: network}]\n":                                                 "schema.dependencies[0].name",
		"dependencies: [{name: net, instance: network}]\n":                                                                 "schema.dependencies[0].stack",
		"dependencies: [{name: net, stack: network, instance: nope}]\n":                                                    "schema.dependencies[0].instance",
		"dependencies: [{name: net, stack: network, instance: replicas}]\n":                                                "schema.dependencies[0].instance",
		"dependencies: [{name: net, stack: network, instance: network, outputs: {subnet: nope}}]\n":                        "schema.dependencies[0].outputs.subnet",
		"dependencies: [{name: net, stack: network, instance: network, outputs: {id: network}}]\n":                         "schema.dependencies[0].outputs.id",
		"dependencies: [{name: net, stack: network, instance: network, colour: red}]\n":                                    "schema.dependencies[0].colour",
		"dependencies: [{name: net, stack: network, instance: network}, {name: net, stack: network, instance: network}]\n": "schema.dependencies[1].name",
	} {
		_, err := ParseSchema([]byte(params + doc))
		require.ErrorContains(t, err, field, doc)
	}
}
