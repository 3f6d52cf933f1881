package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// cappedTF sleeps 4s in the real time provider on apply, so the applies overlap unless the budget holds them apart.
const cappedTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_sleep" "wait" {
  create_duration = "4s"
  triggers        = { greeting = {{ quote .Params.greeting }} }
}
`

// A budget of 2: four instances deploying at once never run more than two terraform applies at
// a time (counted from the live processes), the others say they wait for the budget, and all end Deployed.
func TestCapacityBudgetBoundsConcurrentApplies(t *testing.T) {
	useTimeMirror(t)
	budgets := filepath.Join(t.TempDir(), "capacity.yaml")
	require.NoError(t, os.WriteFile(budgets, []byte("budgets:\n  - {name: e2e-cloud, slots: 2}\n"), 0o644))
	t.Setenv(capacity.Var, budgets)
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the capped stack", map[string][]byte{
		"stacks/capped/schema.yaml":             []byte(brokenSchema + "capacity: {apply: e2e-cloud}\n"),
		"stacks/capped/terraform/main.tf.tmpl":  []byte(fmt.Sprintf(cappedTF, tfmirror.TimeVersion)),
		"stacks/capped/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	const n = 4
	for i := range n {
		e.MustCLI(0, "create", fmt.Sprintf("cap/i%d", i), "-f", writeFile(t, fmt.Sprintf("stack: capped\nparameters:\n  greeting: hi%d\n", i)), "--wait")
	}

	// Sample the live terraform applies while the four deploys run.
	stop := make(chan struct{})
	var (
		mu     sync.Mutex
		most   int
		waited string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			mu.Lock()
			most = max(most, applyDirs(e.StateDir))
			mu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.MustCLI(0, "deploy", fmt.Sprintf("cap/i%d", i), "--wait")
		}()
	}
	deployed := make(chan struct{})
	go func() { wg.Wait(); close(deployed) }()
	for waiting := true; waited == "" && waiting; {
		select {
		case <-deployed:
			waiting = false
		default:
		}
		for i := range n {
			for _, s := range e.Status(fmt.Sprintf("cap/i%d", i)).Operation.Steps {
				if strings.HasPrefix(s.Detail, "waiting for budget e2e-cloud") {
					waited = s.Detail
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	close(stop)
	<-done
	for i := range n {
		require.Equal(t, lifecycle.Deployed, e.Status(fmt.Sprintf("cap/i%d", i)).State)
	}
	require.LessOrEqual(t, most, 2, "at most two applies at once")
	require.Equal(t, 2, most, "the budget's two slots were used at once")
	require.Contains(t, waited, "waiting for budget e2e-cloud (2/2 in use, ")
	t.Logf("capacity: %d deploys on a budget of 2: at most %d applies at once; a queued one showed %q", n, most, waited)
}

// applyDirs counts the instance working directories under stateDir with a terraform apply running.
func applyDirs(stateDir string) int {
	dirs := map[string]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		cwd, err := os.Readlink(filepath.Join("/proc", en.Name(), "cwd"))
		if err != nil || !strings.HasPrefix(cwd, stateDir+string(filepath.Separator)) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && containsArg(args, "apply") {
			dirs[cwd] = true
		}
	}
	return len(dirs)
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}
