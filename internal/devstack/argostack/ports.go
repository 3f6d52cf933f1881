package argostack

import "github.com/slipway-dev/slipway/internal/devstack/freeport"

// ports are every loopback port the stack listens on (or, for commitServer, names).
type ports struct {
	etcdClient, etcdPeer, apiserver, controllerManager, redis int
	repoServer, repoMetrics, controllerMetrics, commitServer  int
	argoServer, argoServerMetrics                             int
}

func pickPorts() (ports, error) {
	var p ports
	for _, dst := range []*int{&p.etcdClient, &p.etcdPeer, &p.apiserver, &p.controllerManager, &p.redis,
		&p.repoServer, &p.repoMetrics, &p.controllerMetrics, &p.commitServer, &p.argoServer, &p.argoServerMetrics} {
		port, err := freeport.Get()
		if err != nil {
			return p, err
		}
		*dst = port
	}
	return p, nil
}
