package e2e

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Attack (P8, every record names its verified actor): alice sets a gate on her instance through
// the server with `--actor carol`, a request's own word of who sent it. The gate list and the gate
// log said carol (a platform admin) froze it, where events said alice; they name alice, the
// person the server verified.
func TestAttackGateLogNamesTheVerifiedPerson(t *testing.T) {
	w := newPeople(t)
	w.as(w.alice, 0, "--actor", "carol", "gate", "add", acmeWeb, "freeze", "--reason", "carol froze it")
	w.as(w.alice, 0, "--actor", "carol", "gate", "remove", acmeWeb, "freeze")
	var st contract.Status
	require.NoError(t, json.Unmarshal([]byte(w.as(w.alice, 0, "status", acmeWeb, "-o", "json", "--detail", "all").Stdout), &st))
	var seen int
	for _, g := range st.GateLog {
		if g.Gate != "freeze" {
			continue
		}
		seen++
		require.Contains(t, g.Actor, "alice", "%s of freeze by %q", g.Action, g.Actor)
		require.NotContains(t, g.Actor, "carol", "%s of freeze by %q", g.Action, g.Actor)
	}
	require.Equal(t, 2, seen, "added and removed: %+v", st.GateLog)
}
