package terraform

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireTerraform returns the real binary; without one the test skips unless
// SLIPWAY_REQUIRE_TERRAFORM=1 (CI), where it fails.
func requireTerraform(t *testing.T) string {
	t.Helper()
	bin, err := FindBinary("")
	if err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_TERRAFORM") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

func newRunner(t *testing.T, opts ...Option) *Runner {
	t.Helper()
	bin := requireTerraform(t)
	r, err := New(t.TempDir(), append([]Option{WithBinary(bin), WithWaitDelay(20 * time.Second)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// ready prepares and inits ws with files.
func ready(t *testing.T, r *Runner, ws Workspace, files map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, r.Prepare(ctx, ws, files))
	require.NoError(t, r.Init(ctx, ws))
}

// twoResources is a root module with a and b plus a child module holding c.
func twoResources(aInput string) map[string][]byte {
	return map[string][]byte{
		"main.tf": []byte(fmt.Sprintf(`
resource "terraform_data" "a" {
  input = %q
}

resource "terraform_data" "b" {
  input = "fixed"
}

module "m" {
  source = "./modules/m"
}
`, aInput)),
		"modules/m/main.tf": []byte(`
resource "terraform_data" "c" {
  input = "child"
}
`),
	}
}

// dbOutputs is one resource with a plain and a sensitive output.
func dbOutputs() map[string][]byte {
	return map[string][]byte{"main.tf": []byte(`resource "terraform_data" "db" {
  input = "db"
}
output "host" {
  value = "${terraform_data.db.output}.internal"
}
output "password" {
  value     = "pw-${terraform_data.db.output}"
  sensitive = true
}
`)}
}

// slowConfig holds the state lock for up to 30s while its provisioner sleeps.
func slowConfig() map[string][]byte {
	return map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "slow" {
  input = "x"
  provisioner "local-exec" {
    command = "exec sleep 30" # exec: an interrupt then reaches sleep itself, not just its shell
  }
}
`)}
}

// waitForLock polls Lock until terraform holds it; the apply finishing first is a failure.
func waitForLock(t *testing.T, r *Runner, ws Workspace, applyDone <-chan error) *LockInfo {
	t.Helper()
	for {
		info, held, err := r.Lock(context.Background(), ws)
		require.NoError(t, err)
		if held {
			return info
		}
		select {
		case err := <-applyDone:
			t.Fatalf("apply ended before its lock was observed: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// safeBuffer is a bytes.Buffer for concurrent writers.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
