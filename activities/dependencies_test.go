package activities

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/steps"
)

func TestConsumedOutputsFillParametersAndRefuseSensitive(t *testing.T) {
	d := config.Dependency{Name: "network", Stack: "network", Instance: "network", Outputs: map[string]string{"subnet": "subnet"}}
	dep := &steps.DependencyInstance{Ref: steps.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.1.0/24", "token": "[sensitive]"}}
	params := map[string]any{"network": "net"}
	require.NoError(t, consumed("app", 0, d, dep, params))
	require.Equal(t, "10.0.1.0/24", params["subnet"])

	require.NoError(t, consumed("app", 0, d, &steps.DependencyInstance{}, nil), "outputs not known yet: checked at the render")
	d.Outputs = map[string]string{"nosuch": "subnet"}
	require.ErrorContains(t, consumed("app", 0, d, dep, nil), "schema.dependencies[0].outputs.nosuch")
	d.Outputs = map[string]string{"token": "subnet"}
	err := consumed("app", 0, d, dep, params)
	require.ErrorContains(t, err, "schema.dependencies[0].outputs.token")
	require.ErrorContains(t, err, "sensitive")
	require.Equal(t, "10.0.1.0/24", params["subnet"], "a sensitive value never reaches a parameter")
}

func TestChangedConsumerComparesCommittedValues(t *testing.T) {
	stack := &config.Stack{Name: "app", Schema: &config.Schema{Dependencies: []config.Dependency{{Name: "network", Stack: "network",
		Instance: "network", Outputs: map[string]string{"subnet": "subnet"}, OnChange: config.OnChangeDeploy}}}}
	user := steps.Ref{Tenant: "acme", Name: "app"}
	in := steps.NotifyDependentsInput{Ref: steps.Ref{Tenant: "acme", Name: "net"}, Outputs: map[string]string{"subnet": "10.0.2.0/24"}}
	inst := &config.Instance{Stack: "app", Parameters: map[string]any{"network": "net", "subnet": "10.0.1.0/24"}}
	op, key := changedConsumer(in, user, stack, inst)
	require.Equal(t, config.OnChangeDeploy, op)
	_, again := changedConsumer(in, user, stack, inst)
	require.Equal(t, key, again, "the same change is the same request")

	inst.Parameters["subnet"] = "10.0.2.0/24"
	op, _ = changedConsumer(in, user, stack, inst)
	require.Empty(t, op, "a dependent that has the value already is not sent anything")

	inst.Parameters["network"] = "other"
	inst.Parameters["subnet"] = "x"
	op, _ = changedConsumer(in, user, stack, inst)
	require.Empty(t, op, "a dependent of another network is not this one's")
}
