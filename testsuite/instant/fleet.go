package instant

import (
	"fmt"

	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// FleetConfig is the config of every instance of a seeded fleet.
const FleetConfig = "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"

// FleetRef is the i-th instance of a seeded fleet in tenant.
func FleetRef(tenant string, i int) contract.Ref {
	return contract.Ref{Tenant: tenant, Name: fmt.Sprintf("web-%05d", i)}
}

// FleetFiles are the instance directories of n instances of stack example in tenant, rendered
// from FleetConfig as their provision would have merged them, keyed by repo-relative path: seeded
// in a forge, they let parked instances (Parked, at SeedRevision) be rolled out and checked for
// drift without running a lifecycle each first.
func FleetFiles(tenant string, n int) (map[string][]byte, error) {
	files, err := examples.StackFiles("example")
	if err != nil {
		return nil, fmt.Errorf("example stack: %w", err)
	}
	stack, err := config.LoadStack("example", files)
	if err != nil {
		return nil, err
	}
	inst, err := config.ParseInstance([]byte(FleetConfig))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for i := range n {
		ref := FleetRef(tenant, i)
		rendered, err := config.Render(ref, ref.Derived().Namespace, stack, inst)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", ref, err)
		}
		for p, d := range rendered {
			out[ref.Dir()+"/"+p] = d
		}
	}
	return out, nil
}

// OutOfSync is the app of an instance whose ConfigMap was edited in the cluster: the deployer
// reports it OutOfSync, which a drift check finds.
func OutOfSync(ref contract.Ref) contract.AppStatus {
	app := Healthy(ref)
	app.Sync = "OutOfSync"
	app.Resources[0].RsyncStatus = "Modified"
	return app
}
