package argocd

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"

	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
)

// SecretName is the Secret in each instance's namespace that holds its bootstrapped secrets;
// a stack's manifests refer to it by this name (secretKeyRef, envFrom).
const SecretName = "slipway-secrets"

// ArgoCD's marks of a resource it manages: removed when slipway adopts a namespace an older
// version let the app create, so the app no longer prunes it.
const (
	trackingAnnotation = "argocd.argoproj.io/tracking-id"
	instanceLabel      = "app.kubernetes.io/instance"
)

// kubeObject is the metadata slipway reads and writes on namespaces and Secrets.
type kubeObject struct {
	APIVersion string            `json:"apiVersion,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Metadata   ObjectMeta        `json:"metadata"`
	Type       string            `json:"type,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
}

func namespacePath(ns string) string { return "/api/v1/namespaces/" + url.PathEscape(ns) }

func ownerLabels(app deploy.App) map[string]string {
	return map[string]string{LabelManagedBy: ManagedBy, LabelTenant: app.Ref.Tenant, LabelName: app.Ref.Name}
}

// ownedBy reports whether labels name app's instance as the owner.
func ownedBy(labels map[string]string, app deploy.App) bool {
	return labels[LabelTenant] == app.Ref.Tenant && labels[LabelName] == app.Ref.Name
}

// ensureNamespace creates app's namespace labelled as the instance's. An existing namespace
// is used only when it is the instance's: labelled so, or (adopt) the one the instance's own
// Application deployed to before slipway created namespaces itself.
func (d *Deployer) ensureNamespace(ctx context.Context, app deploy.App, adopt bool) error {
	var cur kubeObject
	err := d.kube.Get(ctx, namespacePath(app.Namespace), &cur)
	switch {
	case kubeapi.IsNotFound(err):
	case err != nil:
		return err
	case cur.Metadata.DeletionTimestamp != "":
		return fmt.Errorf("argocd: namespace %s is still being deleted; the step is retried", app.Namespace)
	case ownedBy(cur.Metadata.Labels, app):
	case adopt:
		patch := map[string]any{"metadata": map[string]any{
			"labels":      map[string]any{LabelManagedBy: ManagedBy, LabelTenant: app.Ref.Tenant, LabelName: app.Ref.Name, instanceLabel: nil},
			"annotations": map[string]any{trackingAnnotation: nil},
		}}
		return d.kube.MergePatch(ctx, namespacePath(app.Namespace), patch)
	default:
		return &deploy.NotOwnedError{Kind: "kubernetes namespace", Name: app.Namespace, Ref: app.Ref.String(), Owner: owner(cur.Metadata.Labels)}
	}
	ns := kubeObject{APIVersion: "v1", Kind: "Namespace", Metadata: ObjectMeta{Name: app.Namespace, Labels: ownerLabels(app)}}
	return d.kube.Apply(ctx, namespacePath(app.Namespace), ns, nil)
}

// applySecrets puts the instance's bootstrapped secrets in the Secret SecretName of its
// namespace, straight through the cluster's API: they never enter git, the Application or ArgoCD.
func (d *Deployer) applySecrets(ctx context.Context, app deploy.App) error {
	if len(app.Secrets) == 0 {
		return nil
	}
	data := make(map[string]string, len(app.Secrets))
	for k, v := range app.Secrets {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	s := kubeObject{APIVersion: "v1", Kind: "Secret", Type: "Opaque", Data: data,
		Metadata: ObjectMeta{Name: SecretName, Namespace: app.Namespace, Labels: ownerLabels(app)}}
	return d.kube.Apply(ctx, namespacePath(app.Namespace)+"/secrets/"+SecretName, s, nil)
}

// removeNamespace deletes the instance's namespace (its Secret with it) and waits until it is
// gone; a namespace that is not the instance's is left alone.
func (d *Deployer) removeNamespace(ctx context.Context, app deploy.App) error {
	for {
		var cur kubeObject
		err := d.kube.Get(ctx, namespacePath(app.Namespace), &cur)
		switch {
		case kubeapi.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case !ownedBy(cur.Metadata.Labels, app):
			return nil
		case cur.Metadata.DeletionTimestamp == "":
			if err := d.kube.Delete(ctx, namespacePath(app.Namespace)); err != nil {
				return err
			}
		}
		heartbeat(ctx, "deleting namespace "+app.Namespace)
		if err := sleep(ctx, d.c.poll); err != nil {
			return fmt.Errorf("argocd: waiting for namespace %s to be deleted: %w", app.Namespace, err)
		}
	}
}

// owner is the instance labels name, "" when they name none.
func owner(labels map[string]string) string {
	if labels[LabelTenant] == "" && labels[LabelName] == "" {
		return ""
	}
	return labels[LabelTenant] + "/" + labels[LabelName]
}
