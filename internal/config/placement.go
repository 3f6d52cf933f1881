package config

import (
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Placement is a stack's or instance's `placement:`: the ArgoCD clusters the instance's app
// goes to, one Application per cluster. Clusters are named, selected by the labels of their
// ArgoCD cluster secrets (as Kratix's destinationSelectors do), or both (the union). The zero
// value keeps the single cluster of `argocd:`; an instance's placement replaces its stack's.
type Placement struct {
	Clusters []string          `yaml:"clusters,omitempty" json:"clusters,omitempty"`
	Selector map[string]string `yaml:"selector,omitempty" json:"selector,omitempty"` // matchLabels
}

// IsZero says nothing is placed: the app stays on the one cluster of `argocd:`.
func (p Placement) IsZero() bool { return len(p.Clusters) == 0 && len(p.Selector) == 0 }

// maxPlacedClusters bounds the clusters one placement names.
const maxPlacedClusters = 32

// Kubernetes label keys and values. The lengths are checked apart: a bounded repeat such as
// {0,251} compiles into hundreds of KiB that every worker would hold from its start.
var (
	labelPrefixRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	labelNameRE   = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
)

// validLabelKey is a Kubernetes label key: an optional DNS prefix of at most 253 and a name of at most 63.
func validLabelKey(k string) bool {
	prefix, name, prefixed := strings.Cut(k, "/")
	if !prefixed {
		prefix, name = "", k
	} else if len(prefix) > 253 || !labelPrefixRE.MatchString(prefix) {
		return false
	}
	return len(name) <= 63 && labelNameRE.MatchString(name)
}

// validLabelValue is a Kubernetes label value: empty, or a name of at most 63.
func validLabelValue(v string) bool { return v == "" || (len(v) <= 63 && labelNameRE.MatchString(v)) }

// parsePlacement reads `placement: {clusters: [NAME...], selector: {matchLabels: {K: V}}}`.
func parsePlacement(n *yaml.Node, field string, fe *yamlfields.Errors) Placement {
	var p Placement
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with keys clusters, selector, got %s (line %d)", nodeKind(n), n.Line)
		return p
	}
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		switch kv.Key {
		case "clusters":
			p.Clusters = parsePlacedClusters(kv.Value, sub, fe)
		case "selector":
			p.Selector = parsePlacementSelector(kv.Value, sub, fe)
		default:
			fe.Add(sub, "unknown field (line %d); allowed: clusters, selector", kv.Line)
		}
	}
	if p.IsZero() {
		fe.Add(field, "must name clusters or a selector (line %d)", n.Line)
	}
	return p
}

func parsePlacedClusters(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		fe.Add(field, "must be a non-empty list of ArgoCD cluster names (line %d)", n.Line)
		return nil
	}
	if len(n.Content) > maxPlacedClusters {
		fe.Add(field, "names %d clusters, at most %d (line %d)", len(n.Content), maxPlacedClusters, n.Line)
		return nil
	}
	var out []string
	part := map[string]string{} // names.ClusterPart → the cluster named with it
	for _, c := range n.Content {
		name := parseString(c, field, fe)
		switch {
		case !validArgoCluster(name):
			fe.Add(field, "%q must be a cluster name registered in ArgoCD, e.g. in-cluster (line %d)", name, c.Line)
		case slices.Contains(out, name):
			fe.Add(field, "names %q twice (line %d)", name, c.Line)
		case part[names.ClusterPart(name)] != "":
			// The app's Application on each cluster is named after it: these two would share one.
			fe.Add(field, "names %q and %q, whose Applications would have the same name (<app>-%s): name one of them (line %d)",
				part[names.ClusterPart(name)], name, names.ClusterPart(name), c.Line)
		default:
			out = append(out, name)
			part[names.ClusterPart(name)] = name
		}
	}
	return out
}

func parsePlacementSelector(n *yaml.Node, field string, fe *yamlfields.Errors) map[string]string {
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with matchLabels, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var out map[string]string
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		if kv.Key != "matchLabels" {
			fe.Add(sub, "unknown field (line %d); allowed: matchLabels", kv.Line)
			continue
		}
		if kv.Value.Kind != yaml.MappingNode || len(kv.Value.Content) == 0 {
			fe.Add(sub, "must be a non-empty mapping of label to value (line %d)", kv.Line)
			continue
		}
		out = map[string]string{}
		for _, l := range pairs(kv.Value, sub+".", fe) {
			v := parseString(l.Value, sub+"."+l.Key, fe)
			switch {
			case !validLabelKey(l.Key):
				fe.Add(sub+"."+l.Key, "must be a Kubernetes label key (line %d)", l.Line)
			case !validLabelValue(v):
				fe.Add(sub+"."+l.Key, "%q must be a Kubernetes label value (line %d)", v, l.Line)
			default:
				out[l.Key] = v
			}
		}
	}
	if out == nil {
		fe.Add(field, "must have matchLabels (line %d)", n.Line)
	}
	return out
}

// placementNode is p as the canonical instance file writes it: clusters in their order, labels sorted.
func placementNode(p Placement) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if len(p.Clusters) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, c := range p.Clusters {
			list.Content = append(list.Content, scalar(c))
		}
		n.Content = append(n.Content, scalar("clusters"), list)
	}
	if len(p.Selector) > 0 {
		labels := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range sortedKeys(p.Selector) {
			labels.Content = append(labels.Content, scalar(k), scalar(p.Selector[k]))
		}
		n.Content = append(n.Content, scalar("selector"), &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("matchLabels"), labels}})
	}
	return n
}
