package argocd

import (
	"context"
	"errors"
	"net/http"
	"strconv"
)

// DeleteApplication deletes the application (DELETE /api/v1/applications/{name}?cascade=...);
// with cascade its finalizer deletes the managed resources first. Already gone is success.
func (c *Client) DeleteApplication(ctx context.Context, name string, cascade bool) error {
	if err := requireName(name); err != nil {
		return err
	}
	q := c.projectQuery()
	q.Set("cascade", strconv.FormatBool(cascade))
	err := c.do(ctx, request{op: "delete application " + name, method: http.MethodDelete, path: appPath(name, ""), query: q}, nil)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	return err
}
