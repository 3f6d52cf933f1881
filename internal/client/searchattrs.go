package client

import (
	"context"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
)

// SearchAttributeTypeError is a search attribute the namespace holds with another type than
// slipway declares: every upsert of it would fail the workflow task, so a worker must not start on it.
type SearchAttributeTypeError struct {
	Namespace, Name string
	Have, Want      enumspb.IndexedValueType
}

func (e *SearchAttributeTypeError) Error() string {
	return fmt.Sprintf("search attribute %s in namespace %s is registered as %s, slipway declares %s: "+
		"remove it (temporal operator search-attribute remove --name %s) and start the worker again",
		e.Name, e.Namespace, e.Have, e.Want, e.Name)
}

// EnsureSearchAttributes registers slipway's missing search attributes in the namespace with their
// declared types (contract.SearchAttributes), so UI filters and `slipway list` work on any server,
// a plain `temporal server start-dev` included. One registered with another type is an error.
func (c *Client) EnsureSearchAttributes(ctx context.Context) error {
	have, err := c.Temporal.OperatorService().ListSearchAttributes(ctx,
		&operatorservice.ListSearchAttributesRequest{Namespace: c.Namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	want := map[string]enumspb.IndexedValueType{}
	var missing []string
	for _, key := range contract.SearchAttributes {
		name, typ := key.GetName(), key.GetValueType()
		got, ok := have.GetCustomAttributes()[name]
		switch {
		case !ok:
			want[name] = typ
			missing = append(missing, name+"="+typ.String())
		case got != typ:
			return &SearchAttributeTypeError{Namespace: c.Namespace, Name: name, Have: got, Want: typ}
		}
	}
	if len(want) == 0 {
		return nil
	}
	_, err = c.Temporal.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: c.Namespace, SearchAttributes: want,
	})
	if err != nil {
		return fmt.Errorf("register search attributes %s: %w", strings.Join(missing, " "), err)
	}
	return nil
}
