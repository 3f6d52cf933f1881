// Package e2e runs slipway end to end: the real CLI code, a real Temporal dev
// server, a real git GitOps repo and the real terraform binary.
package e2e

import (
	"os"
	"testing"

	"github.com/slipway-dev/slipway/testsuite"
)

func TestMain(m *testing.M) { os.Exit(testsuite.Main(m)) }
