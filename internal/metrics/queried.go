package metrics

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// metricName finds the slipway and Temporal SDK metric names a PromQL expression uses.
var metricName = regexp.MustCompile(`\b(?:slipway|temporal)_[a-z_]+\b`)

// QueriedNames are the metric families a Grafana dashboard and a Prometheus rules file read,
// histogram series folded into their family: what deploy/ relies on a process exposing.
func QueriedNames(dashboardJSON, rulesYAML []byte) ([]string, error) {
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(dashboardJSON, &dash); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			return nil, fmt.Errorf("dashboard: panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	var rules struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(rulesYAML, &rules); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	seen := map[string]bool{}
	for _, e := range exprs {
		for _, n := range metricName.FindAllString(e, -1) {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				if strings.HasSuffix(n, "_seconds"+s) {
					n = strings.TrimSuffix(n, s)
				}
			}
			seen[n] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
