package argostack

import (
	"fmt"
	"strings"
)

// MissingToolError says a binary or file the stack needs is not there and how to get it.
type MissingToolError struct {
	Component string // e.g. "kube-apiserver"
	Path      string // where it was looked for
	Err       error
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("argostack: %s not usable at %s (%v): run `make argocd-stack` "+
		"(builds Kubernetes %s and ArgoCD %s into the tool cache, ~19 minutes once) "+
		"and `apt-get install etcd-server redis-server`",
		e.Component, e.Path, e.Err, KubernetesVersion, ArgoCDVersion)
}

func (e *MissingToolError) Unwrap() error { return e.Err }

// ComponentError says one component failed to start or to become ready; it carries its log tail.
type ComponentError struct {
	Component string
	Err       error
	LogPath   string
	LogTail   string
}

func (e *ComponentError) Error() string {
	return fmt.Sprintf("argostack: %s: %v\n--- %s (tail) ---\n%s", e.Component, e.Err, e.LogPath, e.LogTail)
}

func (e *ComponentError) Unwrap() error { return e.Err }

// StatusError is an HTTP answer with a status the caller did not expect.
type StatusError struct {
	Method string
	URL    string
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("argostack: %s %s: HTTP %d: %s", e.Method, e.URL, e.Status, strings.TrimSpace(e.Body))
}

// ManifestError names the field of a manifest document that is missing or malformed.
type ManifestError struct {
	Doc   int    // 0-based index of the YAML document
	Field string // e.g. "metadata.name"
	Err   error
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("argostack: manifest document %d: field %s: %v", e.Doc, e.Field, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }
