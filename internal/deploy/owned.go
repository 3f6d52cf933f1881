package deploy

import "fmt"

// NotOwnedError is an object in the instance's name that slipway did not create for this
// instance: the deployer neither replaces nor deletes it, and the step fails naming it.
type NotOwnedError struct {
	Kind  string // "ArgoCD application", "ArgoCD project", "kubernetes namespace"
	Name  string
	Ref   string // the instance, TENANT/NAME
	Owner string // who it says it belongs to, "" when it says nothing
}

func (e *NotOwnedError) Error() string {
	owner := "carries no slipway ownership labels"
	if e.Owner != "" {
		owner = "belongs to " + e.Owner
	}
	return fmt.Sprintf("%s %s exists and was not created by slipway for %s (it %s): left untouched", e.Kind, e.Name, e.Ref, owner)
}
