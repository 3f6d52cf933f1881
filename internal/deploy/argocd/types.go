package argocd

// The types below are the subset of argocd-server's JSON (v1alpha1.Application and
// friends) that slipway reads or writes; unknown fields are ignored on decode.

// Application is an ArgoCD Application as the REST API returns it.
type Application struct {
	Metadata ObjectMeta        `json:"metadata"`
	Spec     ApplicationSpec   `json:"spec"`
	Status   ApplicationStatus `json:"status,omitzero"`
	// Operation is set while a requested operation has not completed; the controller clears it.
	Operation *Operation `json:"operation,omitempty"`
}

// ObjectMeta is the Kubernetes object metadata slipway uses.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	DeletionTimestamp string            `json:"deletionTimestamp,omitempty"`
}

// ApplicationSpec is where the manifests come from and where they go.
type ApplicationSpec struct {
	Project     string                 `json:"project"`
	Source      *ApplicationSource     `json:"source,omitempty"`
	Destination ApplicationDestination `json:"destination"`
	SyncPolicy  *SyncPolicy            `json:"syncPolicy,omitempty"`
}

// ApplicationSource is a directory of plain manifests at a git revision.
type ApplicationSource struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
}

// ApplicationDestination is the cluster (by server URL or name) and namespace.
type ApplicationDestination struct {
	Server    string `json:"server,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// SyncPolicy holds sync options. slipway syncs explicitly; a stack's sync: may also ask ArgoCD
// to sync (and self-heal) by itself between deploys (Automated).
type SyncPolicy struct {
	Automated   *SyncPolicyAutomated `json:"automated,omitempty"`
	SyncOptions []string             `json:"syncOptions,omitempty"`
}

// SyncPolicyAutomated is ArgoCD's automated sync; SelfHeal reverts changes made in the cluster.
type SyncPolicyAutomated struct {
	Prune    bool `json:"prune,omitempty"`
	SelfHeal bool `json:"selfHeal,omitempty"`
}

// ApplicationStatus is what the application-controller observed.
type ApplicationStatus struct {
	Sync           SyncStatus       `json:"sync,omitzero"`
	Health         HealthStatus     `json:"health,omitzero"`
	OperationState *OperationState  `json:"operationState,omitempty"`
	Conditions     []Condition      `json:"conditions,omitempty"`
	Resources      []ResourceStatus `json:"resources,omitempty"`
}

// SyncStatus is Synced, OutOfSync or Unknown, at the compared revision.
type SyncStatus struct {
	Status   string `json:"status,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// HealthStatus is Healthy, Progressing, Degraded, Suspended, Missing or Unknown.
type HealthStatus struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// Operation is a requested operation; slipway only requests syncs.
type Operation struct {
	Sync *SyncOperation `json:"sync,omitempty"`
}

// SyncOperation is the revision a sync was asked for.
type SyncOperation struct {
	Revision string `json:"revision,omitempty"`
	Prune    bool   `json:"prune,omitempty"`
}

// OperationState is the progress of the last operation.
type OperationState struct {
	Operation  Operation            `json:"operation"`
	Phase      string               `json:"phase"` // Running, Terminating, Failed, Error, Succeeded
	Message    string               `json:"message,omitempty"`
	SyncResult *SyncOperationResult `json:"syncResult,omitempty"`
	StartedAt  string               `json:"startedAt,omitempty"`
	FinishedAt string               `json:"finishedAt,omitempty"`
}

// SyncOperationResult is the revision a sync applied and each resource's result.
type SyncOperationResult struct {
	Revision  string           `json:"revision,omitempty"`
	Resources []ResourceResult `json:"resources,omitempty"`
}

// ResourceResult is one resource's outcome in a sync (Synced, SyncFailed, Pruned, PruneSkipped).
type ResourceResult struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Status    string `json:"status,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Condition is an application condition such as SyncError or ComparisonError.
type Condition struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// ResourceStatus is one managed resource's sync and health.
type ResourceStatus struct {
	Group     string        `json:"group,omitempty"`
	Version   string        `json:"version,omitempty"`
	Kind      string        `json:"kind,omitempty"`
	Namespace string        `json:"namespace,omitempty"`
	Name      string        `json:"name,omitempty"`
	Status    string        `json:"status,omitempty"`
	Health    *HealthStatus `json:"health,omitempty"`
}

// ResourceTree is the live object graph of an application.
type ResourceTree struct {
	Nodes []ResourceNode `json:"nodes,omitempty"`
}

// ResourceNode is one live object and what owns it.
type ResourceNode struct {
	Group           string        `json:"group,omitempty"`
	Version         string        `json:"version,omitempty"`
	Kind            string        `json:"kind,omitempty"`
	Namespace       string        `json:"namespace,omitempty"`
	Name            string        `json:"name,omitempty"`
	UID             string        `json:"uid,omitempty"`
	ResourceVersion string        `json:"resourceVersion,omitempty"`
	ParentRefs      []ResourceRef `json:"parentRefs,omitempty"`
	Health          *HealthStatus `json:"health,omitempty"`
}

// ResourceRef points at a parent object in the tree.
type ResourceRef struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	UID       string `json:"uid,omitempty"`
}

// Operation phases and sync/health codes slipway reacts to.
const (
	PhaseRunning     = "Running"
	PhaseTerminating = "Terminating"
	PhaseSucceeded   = "Succeeded"
	PhaseFailed      = "Failed"
	PhaseError       = "Error"

	SyncSynced    = "Synced"
	SyncOutOfSync = "OutOfSync"

	HealthHealthy  = "Healthy"
	HealthDegraded = "Degraded"
	HealthMissing  = "Missing"
	HealthUnknown  = "Unknown"

	resultSyncFailed = "SyncFailed"
)
