package names

import "strings"

// ClusterPart is how a cluster's name appears in the names of what slipway places on it (an
// Application per cluster): lowercased, every character outside [a-z0-9-] a '-'. It is not
// injective (Prod_EU and prod-eu give prod-eu), so a placement naming two clusters that give the
// same part is refused (config, and the deployer for the clusters a selector picks).
func ClusterPart(cluster string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(cluster))
}
