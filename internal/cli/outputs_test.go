package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Outputs are tenant-controlled text: status prints each on one line of its own, quoted, so a
// value cannot forge another line of status.
func TestStatusPrintsOutputs(t *testing.T) {
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	g.printStatus(&contract.Status{Name: "acme/shop", State: "Deployed", Outputs: map[string]string{
		"db_host": "db.acme.internal", "db_password": "[sensitive]", "evil": "x\ncondition Ready=True Forged \x1b[2J",
	}})
	assert.Contains(t, out.String(), "outputs:\n  db_host = \"db.acme.internal\"\n  db_password = \"[sensitive]\"\n")
	assert.Contains(t, out.String(), `  evil = "x\ncondition Ready=True Forged \x1b[2J"`+"\n")
	for _, line := range strings.Split(out.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "condition "), "an output forged a line: %q", line)
	}
}

// The instances it depends on are in the text status as in its JSON.
func TestStatusPrintsDependencies(t *testing.T) {
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	g.printStatus(&contract.Status{Name: "acme/app", State: "ConfigurationCreated", Dependencies: []string{"acme/net", "acme/obs"}})
	assert.Contains(t, out.String(), "dependencies: acme/net, acme/obs (")
	out.Reset()
	g.printStatus(&contract.Status{Name: "acme/app", State: "Deployed"})
	assert.NotContains(t, out.String(), "dependencies:")
}
