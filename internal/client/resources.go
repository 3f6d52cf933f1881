package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
)

// resourceStatesTimeout bounds the read of each resource's object (status detail, rsync).
const resourceStatesTimeout = 45 * time.Second

// ResourceStates reads the instance's resources as its deployer holds them, on the worker
// pool that runs its pipelines (it holds the deployer's credentials), and changes nothing.
func (c *Client) ResourceStates(ctx context.Context, ref contract.Ref, pool string) ([]contract.ResourceState, error) {
	// Bounded: a pool with no worker up must not hold a person's status forever.
	ctx, cancel := context.WithTimeout(ctx, resourceStatesTimeout)
	defer cancel()
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "resource-states/" + uuid.NewString(), TaskQueue: controlplane.TaskQueue(c.TaskQueue, pool),
		WorkflowExecutionTimeout: resourceStatesTimeout,
		StaticSummary:            "resources of " + ref.String() + " as the deployer holds them (changes nothing)",
	}, contract.ResourceStatesWorkflowName, contract.ResourceStatesInput{Ref: ref})
	if err != nil {
		return nil, err
	}
	var out []contract.ResourceState
	return out, translate(ref.String(), run.Get(ctx, &out))
}

// withObjects fills each resource of a detail or rsync status with its object: the live one's
// metadata, spec and status (detail), or the rendered one's metadata and spec (rsync). A
// deployer that cannot be asked leaves the resources as recorded and says why.
func (c *Client) withObjects(ctx context.Context, ref contract.Ref, st *contract.Status, output string) {
	if (output != contract.OutputDetail && output != contract.OutputRsync) || len(st.Resources) == 0 ||
		st.Deployer == "" || st.Deployer == "none" {
		return
	}
	ref.Names = st.Names
	states, err := c.ResourceStates(ctx, ref, st.ControlPlane)
	if err != nil {
		st.ResourcesError = err.Error()
		return
	}
	FillObjects(st, states, output)
}

type objectKey struct{ cluster, group, kind, namespace, name string }

// FillObjects puts each state's object on the status's matching resource: live for detail,
// rendered for rsync (its status left out).
func FillObjects(st *contract.Status, states []contract.ResourceState, output string) {
	if output != contract.OutputDetail && output != contract.OutputRsync {
		return
	}
	byKey := map[objectKey]contract.ResourceState{}
	for _, s := range states {
		byKey[objectKey{s.Cluster, s.Group, s.Kind, s.Namespace, s.Name}] = s
	}
	for a := range st.Resources {
		for cl := range st.Resources[a].Clusters {
			rs := st.Resources[a].Clusters[cl].Resources
			for i := range rs {
				s, ok := byKey[objectKey{st.Resources[a].Clusters[cl].Name, rs[i].GVK.Group, rs[i].GVK.Kind, rs[i].Namespace, rs[i].Name}]
				if !ok {
					continue
				}
				obj := s.Live
				if output == contract.OutputRsync {
					obj = s.Target
				}
				md, spec, status, err := splitObject(obj)
				if err != nil {
					st.ResourcesError = fmt.Sprintf("%s/%s: %v", s.Kind, s.Name, err)
					continue
				}
				rs[i].Metadata, rs[i].Spec = md, spec
				if output == contract.OutputDetail {
					rs[i].Status = status
				}
			}
		}
	}
}

// splitObject is an object's metadata, spec and status; for kinds without a spec, the fields
// besides apiVersion, kind, metadata and status stand for it (a ConfigMap's data).
func splitObject(obj json.RawMessage) (md, spec, status json.RawMessage, err error) {
	if len(obj) == 0 {
		return nil, nil, nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil || fields == nil {
		return nil, nil, nil, err
	}
	md, spec, status = fields["metadata"], fields["spec"], fields["status"]
	if spec == nil {
		rest := map[string]json.RawMessage{}
		for k, v := range fields {
			switch k {
			case "apiVersion", "kind", "metadata", "status":
			default:
				rest[k] = v
			}
		}
		if len(rest) > 0 {
			if spec, err = json.Marshal(rest); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	return md, spec, status, nil
}
