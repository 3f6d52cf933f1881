package contract

import "encoding/json"

// ActResourceStates reads each resource of an instance's app as the deployer holds it: the
// object it rendered from git at the deployed revision and the live one (status detail, rsync).
const ActResourceStates = "ResourceStates"

// ResourceStatesInput asks for one instance's resources.
type ResourceStatesInput struct {
	Ref Ref `json:"ref"`
}

// ResourceState is one resource's rendered (Target) and live (Live) object as JSON, null when
// absent (not rendered: an orphan; not live: missing or removed). A Secret's values are masked
// before they leave the worker.
type ResourceState struct {
	Cluster   string          `json:"cluster,omitempty"` // as contract.Resource.Cluster names it
	Group     string          `json:"group,omitempty"`
	Version   string          `json:"version,omitempty"`
	Kind      string          `json:"kind"`
	Namespace string          `json:"namespace,omitempty"`
	Name      string          `json:"name"`
	Target    json.RawMessage `json:"target,omitempty"`
	Live      json.RawMessage `json:"live,omitempty"`
}
