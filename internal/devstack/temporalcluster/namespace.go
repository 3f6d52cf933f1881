package temporalcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
)

// namespaceDeadline bounds setting up the namespace while shards settle on fresh nodes.
const namespaceDeadline = 60 * time.Second

// searchAttributeTypes are the types Options.SearchAttributes accepts, as the dev server spells them.
var searchAttributeTypes = map[string]enumspb.IndexedValueType{
	"Text":        enumspb.INDEXED_VALUE_TYPE_TEXT,
	"Keyword":     enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	"Int":         enumspb.INDEXED_VALUE_TYPE_INT,
	"Double":      enumspb.INDEXED_VALUE_TYPE_DOUBLE,
	"Bool":        enumspb.INDEXED_VALUE_TYPE_BOOL,
	"Datetime":    enumspb.INDEXED_VALUE_TYPE_DATETIME,
	"KeywordList": enumspb.INDEXED_VALUE_TYPE_KEYWORD_LIST,
}

func searchAttributeTypeNames() []string {
	return slices.Sorted(maps.Keys(searchAttributeTypes))
}

// setupNamespace registers the namespace (kept if it exists) and its search attributes
// through addr, then waits until every node in nodeAddrs knows both.
func setupNamespace(ctx context.Context, o Options, addr string, nodeAddrs []string) error {
	ctx, cancel := context.WithTimeout(ctx, namespaceDeadline)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: o.Namespace, Logger: QuietLogger})
	if err != nil {
		return &NamespaceError{Namespace: o.Namespace, Step: "connect to " + addr, Err: err}
	}
	defer c.Close()
	err = retry(ctx, func(ctx context.Context) error {
		_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace: o.Namespace, WorkflowExecutionRetentionPeriod: durationpb.New(o.Retention),
		})
		var exists *serviceerror.NamespaceAlreadyExists
		if errors.As(err, &exists) {
			return nil
		}
		return err
	})
	if err != nil {
		return &NamespaceError{Namespace: o.Namespace, Step: "register", Err: err}
	}
	if err := addSearchAttributes(ctx, c, o); err != nil {
		return err
	}
	// Each node caches namespaces and search attributes: wait until all of them serve both.
	for _, node := range nodeAddrs {
		if err := retry(ctx, func(ctx context.Context) error { return nodeKnows(ctx, node, o) }); err != nil {
			return &NamespaceError{Namespace: o.Namespace, Step: "wait for node " + node, Err: err}
		}
	}
	return nil
}

func addSearchAttributes(ctx context.Context, c client.Client, o Options) error {
	if len(o.SearchAttributes) == 0 {
		return nil
	}
	return retry(ctx, func(ctx context.Context) error {
		have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: o.Namespace})
		if err != nil {
			return err
		}
		want := map[string]enumspb.IndexedValueType{}
		for name, typ := range o.SearchAttributes {
			got, ok := have.GetCustomAttributes()[name]
			switch {
			case !ok:
				want[name] = searchAttributeTypes[typ]
			case got != searchAttributeTypes[typ]:
				return permanent{&NamespaceError{Namespace: o.Namespace, Step: "search attribute " + name,
					Err: fmt.Errorf("registered as %v, want %s", got, typ)}}
			}
		}
		if len(want) == 0 {
			return nil
		}
		_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace: o.Namespace, SearchAttributes: want,
		})
		return err
	})
}

// nodeKnows checks one node's frontend directly: the namespace and every search attribute.
func nodeKnows(ctx context.Context, addr string, o Options) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Namespace: o.Namespace, Logger: QuietLogger})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: o.Namespace}); err != nil {
		return err
	}
	if len(o.SearchAttributes) == 0 {
		return nil
	}
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: o.Namespace})
	if err != nil {
		return err
	}
	for name := range o.SearchAttributes {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			return fmt.Errorf("search attribute %s not visible yet", name)
		}
	}
	return nil
}

// permanent marks an error retry must not retry.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }

// retry runs op until it succeeds, returns a permanent error or ctx ends: fresh nodes answer
// Unavailable while their shards and caches settle.
func retry(ctx context.Context, op func(context.Context) error) error {
	for {
		tryCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := op(tryCtx)
		cancel()
		var p permanent
		switch {
		case err == nil:
			return nil
		case errors.As(err, &p):
			return p.err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
