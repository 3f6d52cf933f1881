package client

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A filter value is one string of the list query whatever it holds: a quote cannot add a clause.
func TestListFilterQuotesItsValues(t *testing.T) {
	q := ListFilter{Tenant: `other' OR Tenant = 'acme`, Stack: `a\' OR 1=1`}.Query()
	require.Contains(t, q, `Tenant = 'other'' OR Tenant = ''acme'`)
	require.Contains(t, q, `InstanceStack = 'a\\'' OR 1=1'`)
	require.Equal(t, 3, strings.Count(q, " AND "), "the clauses are the filter's: %s", q)
}
