package client

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"

	"github.com/slipway-dev/slipway/workflows"
)

// EnsureSearchAttributes registers slipway's search attributes in the namespace
// if they are missing, so UI filters and `slipway list` work on any server.
func (c *Client) EnsureSearchAttributes(ctx context.Context) error {
	have, err := c.Temporal.OperatorService().ListSearchAttributes(ctx,
		&operatorservice.ListSearchAttributesRequest{Namespace: c.Namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	want := map[string]enumspb.IndexedValueType{}
	for name := range workflows.SearchAttributeTypes {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			want[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(want) == 0 {
		return nil
	}
	_, err = c.Temporal.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: c.Namespace, SearchAttributes: want,
	})
	if err != nil {
		return fmt.Errorf("register search attributes %v: %w", want, err)
	}
	return nil
}
