package argocd

import (
	"context"
	"net/http"
)

// ResourceTree reads the application's live object graph (GET .../resource-tree).
func (c *Client) ResourceTree(ctx context.Context, name string) (*ResourceTree, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	var tree ResourceTree
	err := c.do(ctx, request{op: "resource tree of " + name, method: http.MethodGet, path: appPath(name, "/resource-tree"), query: c.projectQuery()}, &tree)
	if err != nil {
		return nil, err
	}
	return &tree, nil
}
