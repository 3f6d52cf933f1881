package config

import (
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// statefulRE is a terraform resource type (aws_db_instance) or a managed resource's address
// (aws_db_instance.main, module.db.aws_db_instance.main), without an instance index.
var statefulRE = regexp.MustCompile(`^(module\.[A-Za-z_][A-Za-z0-9_-]*\.)*[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)?$`)

// parseStateful reads a schema's stateful: the resources whose deletion or replacement needs a
// platform approval whatever approval: says (the policy reads them as input.stack.stateful).
func parseStateful(n *yaml.Node, field string, fe *yamlfields.Errors) []string {
	if n.Kind != yaml.SequenceNode {
		fe.Add(field, "must be a list of terraform resource types or addresses, got %s (line %d)", nodeKind(n), n.Line)
		return nil
	}
	var out []string
	for _, item := range n.Content {
		s, ok := yamlfields.String(item)
		switch {
		case !ok || !statefulRE.MatchString(s):
			fe.Add(field, "%q is not a terraform resource type (aws_db_instance) or address (aws_db_instance.main) (line %d)", s, item.Line)
		case slices.Contains(out, s):
			fe.Add(field, "%q is listed twice (line %d)", s, item.Line)
		default:
			out = append(out, s)
		}
	}
	return out
}
