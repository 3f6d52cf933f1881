package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/slipway-dev/slipway/internal/contract"
)

// sqlVisibilityKeywordLimit is how many Keyword attributes SQL visibility (SQLite, PostgreSQL,
// MySQL) holds per namespace; one more and registering them fails.
const sqlVisibilityKeywordLimit = 10

func TestSearchAttributesFitSQLVisibility(t *testing.T) {
	keywords := 0
	for _, k := range contract.SearchAttributes {
		if k.GetValueType() == enumspb.INDEXED_VALUE_TYPE_KEYWORD {
			keywords++
		}
	}
	require.LessOrEqual(t, keywords, sqlVisibilityKeywordLimit, "Keyword search attributes")
}

func TestSearchAttributeTypesSpellTheDeclaredList(t *testing.T) {
	require.Len(t, contract.SearchAttributeTypes, len(contract.SearchAttributes), "names are unique")
	require.Equal(t, "Keyword", contract.SearchAttributeTypes["InstanceState"])
	require.Equal(t, "Bool", contract.SearchAttributeTypes["InstanceGated"])
	require.Equal(t, "Bool", contract.SearchAttributeTypes["InstanceAwaitingApproval"])
	for _, k := range contract.SearchAttributes {
		typ, err := enumspb.IndexedValueTypeFromString(contract.SearchAttributeTypes[k.GetName()])
		require.NoError(t, err, k.GetName())
		require.Equal(t, k.GetValueType(), typ, k.GetName())
	}
}
