package contract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBoundOutputs(t *testing.T) {
	assert.Nil(t, BoundOutputs(nil))
	out := BoundOutputs(map[string]any{"host": "db.internal", "port": float64(5432), "zones": []any{"a", "b"},
		"password": "[sensitive]", "big": strings.Repeat("x", MaxOutputValue+1)})
	assert.Equal(t, "db.internal", out["host"])
	assert.Equal(t, "5432", out["port"])
	assert.Equal(t, `["a","b"]`, out["zones"])
	assert.Equal(t, "[sensitive]", out["password"])
	assert.Equal(t, fmt.Sprintf(OmittedOutput, MaxOutputValue+1, MaxOutputValue), out["big"])

	many := map[string]any{}
	for i := range MaxOutputs + 5 {
		many[fmt.Sprintf("o%03d", i)] = strings.Repeat("v", 200)
	}
	out = BoundOutputs(many)
	require.Len(t, out, MaxOutputs+1)
	assert.Equal(t, "5 more output(s) not kept", out[MoreOutputs])
	total := 0
	for _, v := range out {
		total += len(v)
	}
	assert.LessOrEqual(t, total, MaxOutputTotal+MaxOutputs*128, "the kept map stays bounded")
	assert.Equal(t, strings.Repeat("v", 200), out["o000"], "values fit in name order until the total is reached")
	assert.Contains(t, out[fmt.Sprintf("o%03d", MaxOutputs-1)], "[omitted: 200 bytes")
}
