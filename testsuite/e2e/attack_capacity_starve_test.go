package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// fairTF sleeps 6s on the apply that sets greeting "slow", 1s otherwise (the creates).
const fairTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_sleep" "wait" {
  create_duration = {{ if eq .Params.greeting "slow" }}"6s"{{ else }}"1s"{{ end }}
  triggers        = { greeting = {{ quote .Params.greeting }} }
}
`

// A tenant starving another at a capacity budget (docs/priority.md promises one tenant's 1,000
// instances cannot starve another's 3): on a budget of 1, acme deploys four instances at once,
// and other's one deploy, asked while acme's wait, must not wait behind every one of them. Before
// the fix the semaphore's queue was first come first served within a priority: other's deploy
// finished after all four of acme's.
func TestAttackCapacityOneTenantStarvesAnother(t *testing.T) {
	e := cappedEnv(t, "e2e-fair", 1, "fair", fmt.Sprintf(fairTF, tfmirror.TimeVersion))
	acme := []string{"acme/f1", "acme/f2", "acme/f3", "acme/f4"}
	for _, ref := range append(acme, "other/f1") {
		e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: fair\nparameters:\n  greeting: hi\n"), "--wait")
	}
	slow := writeFile(t, "stack: fair\nparameters:\n  greeting: slow\n")
	var (
		mu       sync.Mutex
		finished []string
		wg       sync.WaitGroup
	)
	deploy := func(ref string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.MustCLI(0, "deploy", ref, "-f", slow, "--wait")
			mu.Lock()
			finished = append(finished, ref)
			mu.Unlock()
		}()
	}
	for _, ref := range acme {
		deploy(ref)
	}
	// other asks once acme holds the slot and at least two of its deploys wait.
	require.Eventually(t, func() bool { return waitingFor(e, acme, "e2e-fair") >= 2 }, 90*time.Second, 200*time.Millisecond)
	deploy("other/f1")
	wg.Wait()
	t.Logf("deploys finished in the order %v", finished)
	require.NotEqual(t, "other/f1", finished[len(finished)-1], "other's one deploy waited behind every one of acme's: %v", finished)
}

// waitingFor counts the instances of refs with a step waiting for budget.
func waitingFor(e *testsuite.Env, refs []string, budget string) int {
	n := 0
	for _, ref := range refs {
		if op := e.Status(ref).Operation; op != nil {
			for _, s := range op.Steps {
				if strings.HasPrefix(s.Detail, "waiting for budget "+budget) {
					n++
					break
				}
			}
		}
	}
	return n
}
