package config

import (
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Sync is a stack's sync: what ArgoCD does between slipway's deploys. With Automated, ArgoCD
// syncs the instance's Application by itself whenever it is out of sync with the revision
// slipway deployed (a pinned commit: it never moves ahead of a deploy); SelfHeal also puts
// back what someone changed in the cluster by hand (EDP's continuous reconciliation).
type Sync struct {
	Automated bool
	SelfHeal  bool
}

// parseSync reads sync: {automated: bool, selfHeal: bool}. selfHeal needs automated.
func parseSync(n *yaml.Node, field string, fe *yamlfields.Errors) *Sync {
	if n.Kind != yaml.MappingNode {
		fe.Add(field, "must be a mapping with keys automated, selfHeal, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	s := &Sync{}
	healLine := 0
	for _, kv := range pairs(n, field+".", fe) {
		sub := field + "." + kv.Key
		switch kv.Key {
		case "automated":
			s.Automated = parseBool(kv.Value, sub, fe)
		case "selfHeal":
			s.SelfHeal, healLine = parseBool(kv.Value, sub, fe), kv.Line
		default:
			fe.Add(sub, "unknown field (line %d); allowed: automated, selfHeal", kv.Line)
		}
	}
	if s.SelfHeal && !s.Automated {
		fe.Add(field+".selfHeal", "needs automated: true: ArgoCD heals only an application it syncs by itself (line %d)", healLine)
	}
	return s
}
