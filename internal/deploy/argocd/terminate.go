package argocd

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// TerminateOperation stops the running operation (DELETE /api/v1/applications/{name}/operation).
// Nothing running is success: a 404, or argocd-server's "No operation is in progress" (HTTP 400).
func (c *Client) TerminateOperation(ctx context.Context, name string) error {
	if err := requireName(name); err != nil {
		return err
	}
	err := c.do(ctx, request{op: "terminate operation of " + name, method: http.MethodDelete, path: appPath(name, "/operation"), query: c.projectQuery()}, nil)
	var (
		nf  *NotFoundError
		api *APIError
	)
	switch {
	case errors.As(err, &nf):
		return nil
	case errors.As(err, &api) && strings.Contains(api.Message, "No operation is in progress"):
		return nil
	}
	return err
}
