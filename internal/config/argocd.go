package config

import (
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// ArgoCD is a stack's `argocd:` block: the ArgoCD project and destination cluster of its
// instances' Applications. The zero value keeps the defaults: the tenant's own project
// (slipway-<tenant>, made by slipway) on the deployer's cluster.
type ArgoCD struct {
	// Project is an AppProject the operator made; slipway neither creates nor edits it, and
	// ArgoCD refuses a destination it does not allow.
	Project string
	// Server is the destination cluster's API URL as ArgoCD knows it; Cluster its name in
	// ArgoCD instead. At most one is set.
	Server, Cluster string
}

// argoProjectRE is a Kubernetes object name of one DNS label, as AppProject names are.
var argoProjectRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// argoClusterRE is an ArgoCD cluster name: no whitespace or control characters.
var argoClusterRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// validArgoCluster is an ArgoCD cluster name of at most 253 (the length apart: see labelPrefixRE).
func validArgoCluster(name string) bool { return len(name) <= 253 && argoClusterRE.MatchString(name) }

// parseArgoCD reads `argocd: {project, destination: {server | name}}`.
func parseArgoCD(n *yaml.Node, field string, fe *yamlfields.Errors) ArgoCD {
	var a ArgoCD
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return a
	}
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with keys project, destination, got %s (line %d)", nodeKind(n), n.Line)
		return a
	}
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		switch kv.Key {
		case "project":
			a.Project = parseString(kv.Value, sub, fe)
			switch {
			case !argoProjectRE.MatchString(a.Project):
				fe.Add(sub, "%q must be an ArgoCD project name: lower-case letters, digits and '-', at most 63 (line %d)", a.Project, kv.Line)
			case a.Project == "default":
				// ArgoCD's default project allows every source, destination and cluster-scoped kind.
				fe.Add(sub, "must not be ArgoCD's default project, which permits every destination and cluster-scoped kind; name a project made for these apps, or leave it out for the tenant's own (line %d)", kv.Line)
			case strings.HasPrefix(a.Project, "slipway-"):
				fe.Add(sub, "%q is a tenant project slipway makes (slipway-<tenant>); leave project out to use the tenant's own (line %d)", a.Project, kv.Line)
			}
		case "destination":
			parseArgoDestination(kv.Value, sub, &a, fe)
		default:
			fe.Add(sub, "unknown field (line %d); allowed: project, destination", kv.Line)
		}
	}
	return a
}

func parseArgoDestination(n *yaml.Node, field string, a *ArgoCD, fe *yamlfields.Errors) {
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with server or name, got %s (line %d)", nodeKind(n), n.Line)
		return
	}
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		switch kv.Key {
		case "server":
			a.Server = parseString(kv.Value, sub, fe)
			if u, err := url.Parse(a.Server); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
				fe.Add(sub, "%q must be the cluster's API URL as ArgoCD knows it, e.g. https://kubernetes.default.svc (line %d)", a.Server, kv.Line)
			}
		case "name":
			a.Cluster = parseString(kv.Value, sub, fe)
			if !validArgoCluster(a.Cluster) {
				fe.Add(sub, "%q must be a cluster name registered in ArgoCD, e.g. in-cluster (line %d)", a.Cluster, kv.Line)
			}
		case "namespace":
			// The namespace is the instance's claimed name: a template could give two instances one.
			fe.Add(sub, "is not supported: each instance deploys into its own namespace, the name slipway derived and claimed for it (line %d)", kv.Line)
		default:
			fe.Add(sub, "unknown field (line %d); allowed: server, name", kv.Line)
		}
	}
	if a.Server != "" && a.Cluster != "" {
		fe.Add(field, "set server or name, not both (line %d)", n.Line)
	}
	if a.Server == "" && a.Cluster == "" {
		fe.Add(field, "must name the cluster by server or name (line %d)", n.Line)
	}
}
