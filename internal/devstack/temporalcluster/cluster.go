// Package temporalcluster runs a real Temporal cluster (go.temporal.io/server, not the dev
// server) on PostgreSQL: Setup creates and migrates its databases with the sql tool,
// StartNode runs one server process with all four services, and Start runs N of them as one
// cluster behind a single loopback frontend address that survives the loss of a node.
package temporalcluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
)

// Cluster is N nodes on the same databases, one membership ring, one frontend address.
type Cluster struct {
	opts Options
	fwd  *forwarder

	mu    sync.Mutex // nodes fills in while the forwarder already reads it
	nodes []*Node

	stopOnce sync.Once
	stopErr  error
}

// Start sets up the databases, starts the nodes on free loopback ports below 32768, and
// registers the namespace and its search attributes. It returns once every node serves the
// namespace. The cluster outlives ctx; call Stop.
func Start(ctx context.Context, o Options) (_ *Cluster, err error) {
	o, _, err = o.resolve()
	if err != nil {
		return nil, err
	}
	if err := Setup(ctx, o); err != nil {
		return nil, err
	}
	c := &Cluster{opts: o}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()
	addr := o.FrontendAddress
	if addr == "" {
		addr = loopback + ":0"
	}
	if c.fwd, err = listenForwarder(addr, c.serving); err != nil {
		return nil, &OptionError{Field: "Options.FrontendAddress", Value: o.FrontendAddress, Reason: err.Error()}
	}
	node := func(i int) NodeOptions {
		name := fmt.Sprintf("node-%d", i+1)
		return NodeOptions{Name: name, Dir: filepath.Join(o.Dir, name), DB: o.DB, BinDir: o.BinDir,
			ClusterAddress: c.fwd.Addr(), DynamicConfig: o.DynamicConfig, LogLevel: o.LogLevel,
			Authorization: o.Authorization}
	}
	// The first node alone: nodes starting together race to write the cluster metadata record.
	first, err := StartNode(ctx, node(0))
	if err != nil {
		return nil, err
	}
	c.add(first)
	errs := make([]error, o.Nodes)
	var wg sync.WaitGroup
	for i := 1; i < o.Nodes; i++ {
		wg.Go(func() {
			n, err := StartNode(ctx, node(i))
			if err != nil {
				errs[i] = err
				return
			}
			c.add(n)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c.sortNodes()
	// With authorization on, registering a namespace and search attributes needs system admin:
	// the setup goes through the internal frontends, as an operator's would inside the cluster.
	admin, addrs := c.fwd.Addr(), []string{}
	for _, n := range c.Nodes() {
		addrs = append(addrs, cmp.Or(n.InternalAddress(), n.Address()))
	}
	if o.Authorization != nil {
		admin = addrs[0]
	}
	if err := setupNamespace(ctx, o, admin, addrs); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) add(n *Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodes = append(c.nodes, n)
}

// sortNodes puts the nodes in name order (node-1 ... node-9), whatever order they came up in.
func (c *Cluster) sortNodes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.SortFunc(c.nodes, func(a, b *Node) int { return cmp.Compare(a.Name(), b.Name()) })
}

// serving lists the frontends of the nodes that serve now, for the forwarder.
func (c *Cluster) serving() []string {
	var addrs []string
	for _, n := range c.Nodes() {
		if n.Serving() {
			addrs = append(addrs, n.Address())
		}
	}
	return addrs
}

// Frontend is the cluster's one stable loopback host:port. Each connection goes to a live
// node, so a client whose node dies reconnects to a survivor.
func (c *Cluster) Frontend() string { return c.fwd.Addr() }

// Nodes are the cluster's nodes: node-1, node-2, ...
func (c *Cluster) Nodes() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.nodes)
}

// Namespace is the namespace Start registered.
func (c *Cluster) Namespace() string { return c.opts.Namespace }

// Stop stops every node (together) and the frontend forwarder; safe after a partial Start
// and more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() { c.stopErr = c.stop() })
	return c.stopErr
}

func (c *Cluster) stop() error {
	nodes := c.Nodes()
	errs := make([]error, len(nodes)+1)
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() { errs[i] = n.Stop() })
	}
	wg.Wait()
	if c.fwd != nil {
		errs[len(nodes)] = c.fwd.close()
	}
	return errors.Join(errs...)
}
